package io.uform.sample.search;

/**
 * One search result: a corpus row and its dot product with the query.
 *
 * @param row the vector's index in the corpus
 * @param score the dot product (the cosine similarity, corpus vectors being unit length)
 */
public record Hit(int row, float score) {
}
