package io.uform.onnxruntime;

/**
 * One batch a model embedded on its executor: what an {@link EmbeddingListener} hears.
 *
 * @param model the model's name
 * @param texts texts embedded (each its own session call)
 * @param tokens tokens fed to the model, special tokens included
 * @param requests callers' requests served together in this batch
 * @param nanos time from the batch's start on the executor to its last vector
 */
public record EmbeddingBatch(String model, int texts, long tokens, int requests, long nanos) {
}
