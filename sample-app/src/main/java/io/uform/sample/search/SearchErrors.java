package io.uform.sample.search;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

import io.uform.UformException;

/**
 * Turns what can go wrong with a search request into an RFC 9457 problem a client can act on: 400
 * naming the bad field and what is accepted, or 503 with {@code Retry-After} when the executor's
 * deferred-call slots stay full (the service is saturated; nothing was queued).
 */
@RestControllerAdvice(assignableTypes = SearchController.class)
// Before Boot's ProblemDetailsExceptionHandler (order 0), which answers these in Spring's own words.
@Order(Ordered.HIGHEST_PRECEDENCE)
class SearchErrors {

	private final SearchService search;

	SearchErrors(SearchService search) {
		this.search = search;
	}

	@ExceptionHandler
	ProblemDetail badSearch(BadSearchException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail unreadable(HttpMessageNotReadableException ex) {
		// Jackson's first line says where the JSON broke; the rest is its internal path, not for clients.
		String cause = String.valueOf(ex.getMostSpecificCause().getMessage()).lines().findFirst().orElse("");
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"the body must be JSON like {\"vector\": [" + this.search.corpus().dimensions()
						+ " numbers], \"k\": 10, \"engine\": \"auto\"} (JSON has no NaN or Infinity): " + cause);
	}

	@ExceptionHandler
	ProblemDetail badParameter(MethodArgumentTypeMismatchException ex) {
		String value = String.valueOf(ex.getValue());
		// A whole number too large for the parameter's type is out of range, not "not a whole number".
		String what = value.matches("[-+]?\\d+") ? " is out of range" : " must be a whole number";
		String range = "k".equals(ex.getName()) ? " (k: 1 to " + this.search.corpus().rows() + ")" : "";
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				ex.getName() + what + range + ", was '" + value + "'");
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> executor(UformException ex) {
		return switch (ex.status()) {
			// Saturated, or shutting down: nothing ran, and another try (here or elsewhere) may succeed.
			case TIMEOUT -> unavailable("every search slot stayed taken for " + SearchService.SLOT_WAIT.toMillis()
					+ " ms (uform.ram.deferred-limit / uform.vram.deferred-limit searches in flight); retry later");
			case FREED, INTERRUPTED -> unavailable("the service is shutting down: " + ex.getMessage());
			default -> ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
				.body(ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR, "the search failed: " + ex.getMessage()));
		};
	}

	private static ResponseEntity<ProblemDetail> unavailable(String detail) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, "1")
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail));
	}
}
