package io.uform.sample.search;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdDeserializer;

/**
 * Reads a query vector only as a JSON array of numbers. Jackson also reads a {@code float[]} from a
 * base64 string (big-endian floats), which a client sending a string by mistake would have searched
 * without a word; here it is a 400 like any other body that is not the documented JSON. (Strings
 * inside the array are refused by {@code spring.jackson.mapper.allow-coercion-of-scalars: false}.)
 */
final class JsonNumberArray extends StdDeserializer<float[]> {

	JsonNumberArray() {
		super(float[].class);
	}

	@Override
	public float[] deserialize(JsonParser parser, DeserializationContext context) {
		if (!parser.isExpectedStartArrayToken()) {
			return (float[]) context.handleUnexpectedToken(float[].class, parser);
		}
		// The type's own deserializer: this one is on the field, not on float[].
		return context.readValue(parser, float[].class);
	}
}
