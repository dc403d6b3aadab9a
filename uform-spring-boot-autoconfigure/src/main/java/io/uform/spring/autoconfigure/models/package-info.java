/**
 * Text embedding models from {@code uform.models.<name>.*}, served on the executors: for each entry a
 * uform {@code TextEmbeddingModel} bean, and a Spring AI or langchain4j {@code EmbeddingModel} bean
 * where those libraries are on the class path. Its own auto-configuration, conditional on
 * {@code io.uform:uform-onnxruntime}, so that an application that only wants executors carries no ONNX
 * Runtime; the Spring AI and langchain4j beans in nested configurations conditional on their classes.
 */
@NullMarked
package io.uform.spring.autoconfigure.models;

import org.jspecify.annotations.NullMarked;
