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
}
