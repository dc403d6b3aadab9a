package io.uform.bench.embedding;

import java.util.List;

/**
 * One way to embed texts with the same model file: a batch from one caller, or one text from each of
 * many callers at once. Each peer tokenizes inside the call, as its users would see it.
 */
interface Peer extends AutoCloseable {

	/**
	 * The peer's name in the table.
	 * @return its name
	 */
	String name();

	/**
	 * Embeds a batch.
	 * @param texts the batch
	 * @return one vector per text, in order (unit length or not: the comparison normalises)
	 */
	float[][] embedAll(List<String> texts);

	/**
	 * Embeds one text; called by many threads at once.
	 * @param text the text
	 * @return its vector
	 */
	float[] embed(String text);

	@Override
	void close() throws Exception;
}
