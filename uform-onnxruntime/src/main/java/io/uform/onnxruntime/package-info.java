/**
 * Models on uform executors: ONNX Runtime sessions that own weights, never threads.
 *
 * <p>{@link io.uform.onnxruntime.TextEmbeddingModel} loads a text embedding model (an ONNX file and
 * its {@code tokenizer.json}) onto an {@link io.uform.Executor}: one session (one per device on a VRAM
 * executor) with ONNX Runtime's own pools at one thread, so the executor's threads do all the work
 * and several models share them. Requests are refused on the caller's thread when they are bad,
 * gathered by deferred calls within a token budget, and embedded one text per session call across
 * the executor's threads.
 */
package io.uform.onnxruntime;
