package io.uform.onnxruntime;

/**
 * Hears every batch a model embeds, on the executor's deferred thread once the batch is done: keep it
 * quick. Spring Boot's starter turns it into meters and observations; this library depends on no
 * metrics API. A listener that throws is logged and otherwise ignored: the vectors still reach their
 * callers.
 */
@FunctionalInterface
public interface EmbeddingListener {

	/** Hears nothing. */
	EmbeddingListener NONE = batch -> {
	};

	/**
	 * A batch was embedded.
	 * @param batch what it held and took
	 */
	void embedded(EmbeddingBatch batch);

	/**
	 * A request was refused on its caller's thread, before it cost the executor anything (no texts, too
	 * many, an empty one, one too long): the caller's mistake, for a counter rather than a log line.
	 * @param model the model's name
	 * @param refusal what the caller gets
	 */
	default void refused(String model, EmbeddingRefusedException refusal) {
	}
}
