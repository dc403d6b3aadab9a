package io.uform.sample.openai;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import io.uform.UformException;
import io.uform.sample.search.BadSearchException;
import io.uform.sample.web.OpenAiRouteErrors;

/**
 * The OpenAI-compatible route's errors in OpenAI's body, {@code {"error": {"message", "type", "param",
 * "code"}}}, with the statuses its clients act on: 400 for a mistake, 404 for an unknown model (which
 * langchain4j maps to {@code ModelNotFoundException}), 503 with {@code Retry-After} when the executor is
 * saturated or shutting down (every OpenAI client retries a 503, and Spring AI's retry treats 4xx, 429
 * included, as final). The body is {@link OpenAiRouteErrors}', as every error under {@code /v1}.
 */
@RestControllerAdvice(assignableTypes = OpenAiEmbeddingsController.class)
// Before Boot's ProblemDetailsExceptionHandler (order 0): this route does not answer RFC 9457.
@Order(Ordered.HIGHEST_PRECEDENCE)
class OpenAiErrors {

	@ExceptionHandler
	ResponseEntity<Object> refused(OpenAiException ex) {
		return OpenAiRouteErrors.entity(ex.status(), ex.param(), ex.code(), ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<Object> badText(BadSearchException ex) {
		boolean tooLong = ex.getMessage().contains("tokens");
		return OpenAiRouteErrors.entity(HttpStatus.BAD_REQUEST, "input",
				tooLong ? "context_length_exceeded" : null, ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<Object> unreadable(HttpMessageNotReadableException ex) {
		String cause = String.valueOf(ex.getMostSpecificCause().getMessage()).lines().findFirst().orElse("");
		return OpenAiRouteErrors.entity(HttpStatus.BAD_REQUEST, null, null,
				"the body is not valid JSON: " + cause);
	}

	@ExceptionHandler
	ResponseEntity<Object> notJson(HttpMediaTypeNotSupportedException ex) {
		return OpenAiRouteErrors.entity(HttpStatus.UNSUPPORTED_MEDIA_TYPE, null, null,
				"send the body as application/json; was " + ex.getContentType());
	}

	@ExceptionHandler
	ResponseEntity<Object> executor(UformException ex) {
		return switch (ex.status()) {
			case TIMEOUT -> unavailable("overloaded", "every embedding slot stayed taken for the model's slot wait "
					+ "(uform.ram.deferred-limit calls in flight); retry after the Retry-After delay");
			case FREED, INTERRUPTED -> unavailable("shutting_down", "the server is shutting down; retry elsewhere");
			default -> OpenAiRouteErrors.entity(HttpStatus.INTERNAL_SERVER_ERROR, null, null,
					"the embedding failed: " + ex.getMessage());
		};
	}

	private static ResponseEntity<Object> unavailable(String code, String message) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, "1")
			.contentType(MediaType.APPLICATION_JSON)
			.body(OpenAiRouteErrors.body(HttpStatus.SERVICE_UNAVAILABLE, null, code, message));
	}
}
