package io.uform.host;

import io.uform.failure.RuntimeFailure.Status;

/**
 * How the host runtime's refusals become exceptions: the API that owns the runtime makes them, so
 * that its callers get the API's own exception, status and message, and the runtime names none of the
 * API's types. The runtime writes every message and says why with the status the other runtime
 * packages use ({@link Status}); an implementation only wraps it.
 */
public interface HostErrors {

	/**
	 * The exception for a refusal.
	 * @param status why the runtime refused
	 * @param message what was wrong and how to fix it
	 * @param cause the underlying failure, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException error(Status status, String message, Throwable cause);

	/**
	 * The exception for a value the runtime cannot use, with the parts a report names.
	 * @param field the field or argument, as the user spells it
	 * @param value the value given
	 * @param fix what is wrong with it and what to give instead
	 * @return the exception to throw
	 */
	RuntimeException invalid(String field, Object value, String fix);

	/**
	 * A copy of one of these exceptions, thrown by a task on another thread, for the fork's caller to
	 * throw: same class, status and message, with {@code failure} as its cause.
	 * @param failure what a task threw
	 * @return the copy, or {@code null} where {@code failure} is not one of these exceptions
	 */
	Throwable copyForCaller(Throwable failure);
}
