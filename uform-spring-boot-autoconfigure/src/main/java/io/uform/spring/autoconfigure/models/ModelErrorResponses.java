package io.uform.spring.autoconfigure.models;

import java.time.Duration;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import io.uform.UformException;
import io.uform.onnxruntime.EmbeddingRefusedException;

/**
 * What a web application answers when a model's refusal reaches it from a handler: a request the model
 * refused on its caller's thread ({@link EmbeddingRefusedException}: no texts, too many, a blank or
 * too-long one) is the client's mistake, 400; a request that found the executor saturated past the
 * model's {@code slot-wait} ({@link UformException} {@code TIMEOUT}) or closing for shutdown
 * ({@code FREED}) is 503 with {@code Retry-After}. Each is an RFC 9457 problem detail whose
 * {@code detail} is uform's message, which names the text or the limit, and none logs an ERROR or
 * answers a stack trace (left unhandled, each was a 500 with both).
 *
 * <p>Last among the controller advice: an application's own {@code @ExceptionHandler} for these
 * exceptions, in its controller or its advice, answers instead. Any other {@link UformException} is
 * left to the application and Boot.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
final class ModelErrorResponses {

	/** When a saturated or closing executor's client should try again. */
	static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	/**
	 * A request the model refused before it cost the executor anything.
	 * @param refusal what the model threw
	 * @return 400, with the refusal's message
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> refused(EmbeddingRefusedException refusal) {
		return ResponseEntity.badRequest().body(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, refusal.getMessage()));
	}

	/**
	 * A request that found the executor saturated or closing: 503, to try again; any other status is
	 * left to the application.
	 * @param failure what the model (or the executor) threw
	 * @return 503 with {@code Retry-After}
	 * @throws UformException the failure itself, when it is neither
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> unavailable(UformException failure) {
		if (failure.status() != UformException.Status.TIMEOUT && failure.status() != UformException.Status.FREED) {
			throw failure;
		}
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(RETRY_AFTER.toSeconds()))
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, failure.getMessage()));
	}
}
