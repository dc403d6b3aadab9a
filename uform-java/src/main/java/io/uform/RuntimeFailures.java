package io.uform;

import io.uform.failure.RuntimeFailure;

/**
 * Turns the runtime's {@link RuntimeFailure} into the {@link UformException} callers of the API get,
 * where {@code io.uform} calls into {@code io.uform.gpu} or {@code io.uform.mesh}: same status (by
 * name), message, field, value and fix, the cause and suppressed failures turned alike, and the stack
 * trace of where the runtime failed.
 */
final class RuntimeFailures {

	private RuntimeFailures() {
	}

	/**
	 * The API's exception for a runtime failure.
	 * @param failure what the runtime threw
	 * @return the exception to throw in its place
	 */
	static UformException uform(RuntimeFailure failure) {
		UformException uform = new UformException(UformException.Status.valueOf(failure.status().name()),
				failure.getMessage(), uformOrSame(failure.getCause()), failure.field(), failure.value(), failure.fix());
		uform.setStackTrace(failure.getStackTrace());
		for (Throwable suppressed : failure.getSuppressed()) {
			uform.addSuppressed(uformOrSame(suppressed));
		}
		return uform;
	}

	/**
	 * A throwable as callers of the API may see it: a runtime failure turned into a
	 * {@link UformException}, anything else as it is.
	 * @param thrown what was thrown, or {@code null}
	 * @return the throwable to pass on
	 */
	static Throwable uformOrSame(Throwable thrown) {
		return (thrown instanceof RuntimeFailure failure) ? uform(failure) : thrown;
	}
}
