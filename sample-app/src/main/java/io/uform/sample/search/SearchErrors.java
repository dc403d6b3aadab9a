package io.uform.sample.search;

import java.util.List;

import tools.jackson.core.JacksonException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

import io.uform.UformException;

/**
 * Turns what can go wrong with a search or embedding request into an RFC 9457 problem a client can act
 * on: 400 naming the bad field and what is accepted, or 503 with {@code Retry-After} when the
 * executor's deferred-call slots stay full (the service is saturated; nothing was queued) or the
 * passage index is still being built.
 */
@RestControllerAdvice(assignableTypes = { SearchController.class, EmbedController.class })
// Before Boot's ProblemDetailsExceptionHandler (order 0), which answers these in Spring's own words.
@Order(Ordered.HIGHEST_PRECEDENCE)
class SearchErrors {

	private final ObjectProvider<SearchService> vectors;

	private final ObjectProvider<PassageIndex> index;

	SearchErrors(ObjectProvider<SearchService> vectors, ObjectProvider<PassageIndex> index) {
		this.vectors = vectors;
		this.index = index;
	}

	@ExceptionHandler
	ProblemDetail badSearch(BadSearchException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail unreadable(HttpMessageNotReadableException ex, HandlerMethod handler) {
		// Jackson's first line says where the JSON broke; the rest is its internal path, not for clients.
		Throwable specific = ex.getMostSpecificCause();
		String cause = String.valueOf(specific.getMessage()).lines().findFirst().orElse("");
		if (specific instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
			cause = "at " + path(jackson.getPath()) + ": " + cause;
		}
		SearchService vectors = this.vectors.getIfAvailable();
		String like = (handler.getBeanType() == EmbedController.class) ? "{\"texts\": [\"a sentence\", \"another\"]}"
				: "{\"query\": \"a question\", \"k\": 10}" + ((vectors != null) ? " or {\"vector\": ["
						+ vectors.corpus().dimensions() + " numbers], \"k\": 10, \"engine\": \"auto\"} (JSON has no NaN or Infinity)" : "");
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "the body must be JSON like " + like + ": " + cause);
	}

	/** Where in the body, as a client would write it: {@code texts[1]}. */
	private static String path(List<JacksonException.Reference> references) {
		StringBuilder path = new StringBuilder();
		for (JacksonException.Reference reference : references) {
			if (reference.getPropertyName() != null) {
				path.append((path.length() > 0) ? "." : "").append(reference.getPropertyName());
			}
			else if (reference.getIndex() >= 0) {
				path.append('[').append(reference.getIndex()).append(']');
			}
		}
		return path.toString();
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> notReady(IndexNotReadyException ex) {
		return unavailable(ex.getMessage());
	}

	@ExceptionHandler
	ProblemDetail badParameter(MethodArgumentTypeMismatchException ex, HandlerMethod handler) {
		String value = String.valueOf(ex.getValue());
		// A whole number too large for the parameter's type is out of range, not "not a whole number".
		String what = value.matches("[-+]?\\d+") ? " is out of range" : " must be a whole number";
		SearchService vectors = this.vectors.getIfAvailable();
		// GET /search/random's k counts vector rows; GET /search's, passages (none without the model).
		PassageIndex passages = this.index.getIfAvailable();
		int rows = (handler.getMethod().getName().equals("random") && vectors != null) ? vectors.corpus().rows()
				: (passages != null) ? passages.passages().size() : 0;
		String range = ("k".equals(ex.getName()) && rows > 0) ? " (k: 1 to " + rows + ")" : "";
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				ex.getName() + what + range + ", was '" + value + "'");
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> executor(UformException ex) {
		return switch (ex.status()) {
			// Saturated, or shutting down: nothing ran, and another try (here or elsewhere) may succeed.
			// The wait is the model entry's slot-wait for a text search and SearchService.SLOT_WAIT for a
			// vector search: the detail names neither figure rather than one that may be wrong.
			case TIMEOUT -> unavailable("every search slot stayed taken for as long as a search waits for one "
					+ "(uform.ram.deferred-limit / uform.vram.deferred-limit searches in flight); retry later");
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
