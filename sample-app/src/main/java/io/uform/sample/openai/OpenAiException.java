package io.uform.sample.openai;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;

/**
 * A refusal on the OpenAI-compatible route, answered with OpenAI's error body
 * ({@code {"error": {"message", "type", "param", "code"}}}) and a status its clients understand.
 */
final class OpenAiException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final HttpStatus status;

	private final @Nullable String param;

	private final @Nullable String code;

	OpenAiException(HttpStatus status, @Nullable String param, @Nullable String code, String message) {
		super(message);
		this.status = status;
		this.param = param;
		this.code = code;
	}

	/** A mistake in the request: 400, {@code invalid_request_error}. */
	static OpenAiException invalid(@Nullable String param, String message) {
		return new OpenAiException(HttpStatus.BAD_REQUEST, param, null, message);
	}

	HttpStatus status() {
		return this.status;
	}

	@Nullable String param() {
		return this.param;
	}

	@Nullable String code() {
		return this.code;
	}
}
