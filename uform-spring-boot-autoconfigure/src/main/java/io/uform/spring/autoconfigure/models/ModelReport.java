package io.uform.spring.autoconfigure.models;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What one configured model is and has done, for the {@code uform} endpoint, health and info: a
 * snapshot that names no ONNX Runtime type, so that Actuator reads it without {@code uform-onnxruntime}.
 *
 * @param name the entry's name in {@code uform.models}
 * @param file where the ONNX file was read from
 * @param dimensions floats per vector; {@code -1} before it is loaded, or where the file leaves it symbolic
 * @param pooling {@code mean} or {@code cls}
 * @param executor the bean name of the executor it runs on
 * @param loadedAt when its bean finished loading it; {@code null} before
 * @param loadMillis how long the load took; {@code 0} before
 * @param calls requests embedded
 * @param texts texts embedded
 * @param tokens tokens fed to the model, special tokens included
 * @param refused requests refused before they reached the executor (the callers' mistakes)
 */
public record ModelReport(String name, String file, int dimensions, String pooling, String executor,
		@Nullable Instant loadedAt, long loadMillis, long calls, long texts, long tokens, long refused) {
}
