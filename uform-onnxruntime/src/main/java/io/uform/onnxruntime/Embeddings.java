package io.uform.onnxruntime;

/**
 * One request's vectors and the tokens they took, special tokens included: what an embeddings API
 * reports as its usage.
 *
 * @param vectors a vector per text, in the request's order
 * @param tokens tokens fed to the model for these texts
 */
public record Embeddings(float[][] vectors, long tokens) {
}
