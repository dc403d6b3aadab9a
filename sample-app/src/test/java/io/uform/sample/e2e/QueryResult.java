package io.uform.sample.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;

/**
 * Prometheus' answer to an instant query ({@code /api/v1/query}): whether it was accepted, and the
 * samples it returned, reduced to what a dashboard check needs (each series' labels and value).
 *
 * @param success whether Prometheus answered {@code status: success}: the expression parsed and ran
 * @param error its {@code errorType: error} otherwise
 * @param resultType {@code vector}, {@code matrix}, {@code scalar} or {@code string}
 * @param samples every value returned; a range vector's every point
 */
record QueryResult(boolean success, String error, String resultType, List<Sample> samples) {

	/**
	 * One value of the answer.
	 *
	 * @param labels the series' labels, empty for a scalar
	 * @param value the value; {@code NaN} where Prometheus wrote {@code NaN} or a value is not a number
	 */
	record Sample(Map<String, String> labels, double value) {
	}

	/**
	 * Reads the API's JSON.
	 * @param body the response
	 * @return the answer
	 */
	static QueryResult from(JsonNode body) {
		if (!"success".equals(body.path("status").asString(""))) {
			String error = body.path("errorType").asString("no errorType") + ": " + body.path("error").asString("");
			return new QueryResult(false, error, "", List.of());
		}
		JsonNode data = body.path("data");
		String type = data.path("resultType").asString("");
		JsonNode result = data.path("result");
		List<Sample> samples = new ArrayList<>();
		switch (type) {
			case "vector" -> result
				.forEach((series) -> samples.add(sample(series.path("metric"), series.path("value"))));
			case "matrix" -> result.forEach((series) -> series.path("values")
				.forEach((point) -> samples.add(sample(series.path("metric"), point))));
			case "scalar" -> samples.add(sample(null, result));
			default -> {
				// A string result holds no number a panel could draw.
			}
		}
		return new QueryResult(true, "", type, List.copyOf(samples));
	}

	/** {@code point} is {@code [unix time, "value"]}: Prometheus writes values as strings, NaN and Inf included. */
	private static Sample sample(JsonNode metric, JsonNode point) {
		Map<String, String> labels = new TreeMap<>();
		if (metric != null) {
			metric.properties().forEach((label) -> labels.put(label.getKey(), label.getValue().asString("")));
		}
		double value;
		try {
			value = Double.parseDouble(point.path(1).asString("NaN").replace("Inf", "Infinity"));
		}
		catch (NumberFormatException ex) {
			value = Double.NaN;
		}
		return new Sample(labels, value);
	}

	/**
	 * Whether a panel would draw something: at least one value that is a number.
	 * @return {@code true} when some value is not NaN
	 */
	boolean hasNumber() {
		return this.samples.stream().anyMatch((sample) -> !Double.isNaN(sample.value()));
	}

	/**
	 * What Prometheus said, for a failure message.
	 * @return the error, "empty vector", or the first few series and values
	 */
	String describe() {
		if (!this.success) {
			return "error " + this.error;
		}
		if (this.samples.isEmpty()) {
			return "empty " + this.resultType + " (no series)";
		}
		StringBuilder text = new StringBuilder(this.resultType + " of " + this.samples.size() + ":");
		this.samples.stream()
			.limit(3)
			.forEach((sample) -> text.append(' ').append(sample.labels()).append('=').append(sample.value()));
		return text.append((this.samples.size() > 3) ? " ..." : "").toString();
	}
}
