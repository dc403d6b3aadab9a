/**
 * Text embedding side by side: uform's model on a RAM executor against Spring AI's
 * {@code TransformersEmbeddingModel}, langchain4j's in-process model (defaults and tuned) and ONNX
 * Runtime's own threading, on the same model file and texts ({@link io.uform.bench.embedding.EmbeddingPeers}).
 * How to run it and the latest figures: {@code docs/benchmarks.md}.
 */
package io.uform.bench.embedding;
