package io.uform.sample.openai;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.uform.UformException;
import io.uform.sample.search.BadSearchException;

/**
 * The OpenAI-compatible route's errors in OpenAI's body, {@code {"error": {"message", "type", "param",
 * "code"}}}, with the statuses its clients act on: 400 for a mistake, 404 for an unknown model (which
 * langchain4j maps to {@code ModelNotFoundException}), 503 with {@code Retry-After} when the executor is
 * saturated or shutting down (every OpenAI client retries a 503, and Spring AI's retry treats 4xx, 429
 * included, as final).
 */
@RestControllerAdvice(assignableTypes = OpenAiEmbeddingsController.class)
// Before Boot's ProblemDetailsExceptionHandler (order 0): this route does not answer RFC 9457.
@Order(Ordered.HIGHEST_PRECEDENCE)
class OpenAiErrors {

	@ExceptionHandler
	ResponseEntity<Map<String, Object>> refused(OpenAiException ex) {
		return error(ex.status(), ex.type(), ex.param(), ex.code(), ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<Map<String, Object>> badText(BadSearchException ex) {
		boolean tooLong = ex.getMessage().contains("tokens");
		return error(HttpStatus.BAD_REQUEST, "invalid_request_error", "input",
				tooLong ? "context_length_exceeded" : null, ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<Map<String, Object>> unreadable(HttpMessageNotReadableException ex) {
		String cause = String.valueOf(ex.getMostSpecificCause().getMessage()).lines().findFirst().orElse("");
		return error(HttpStatus.BAD_REQUEST, "invalid_request_error", null, null,
				"the body is not valid JSON: " + cause);
	}

	@ExceptionHandler
	ResponseEntity<Map<String, Object>> notJson(HttpMediaTypeNotSupportedException ex) {
		return error(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "invalid_request_error", null, null,
				"send the body as application/json; was " + ex.getContentType());
	}

	@ExceptionHandler
	ResponseEntity<Map<String, Object>> executor(UformException ex) {
		return switch (ex.status()) {
			case TIMEOUT -> unavailable("overloaded", "every embedding slot stayed taken for a second "
					+ "(uform.ram.deferred-limit calls in flight); retry after the Retry-After delay");
			case FREED, INTERRUPTED -> unavailable("shutting_down", "the server is shutting down; retry elsewhere");
			default -> error(HttpStatus.INTERNAL_SERVER_ERROR, "server_error", null, null,
					"the embedding failed: " + ex.getMessage());
		};
	}

	private static ResponseEntity<Map<String, Object>> unavailable(String code, String message) {
		ResponseEntity<Map<String, Object>> body = error(HttpStatus.SERVICE_UNAVAILABLE, "server_error", null, code, message);
		return ResponseEntity.status(body.getStatusCode()).header(HttpHeaders.RETRY_AFTER, "1").body(body.getBody());
	}

	private static ResponseEntity<Map<String, Object>> error(HttpStatus status, String type, @Nullable String param,
			@Nullable String code, String message) {
		Map<String, Object> error = new HashMap<>();
		error.put("message", message);
		error.put("type", type);
		error.put("param", param);
		error.put("code", code);
		return ResponseEntity.status(status).body(Map.of("error", error));
	}
}
