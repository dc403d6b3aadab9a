package io.uform;

import io.uform.UformException.Status;
import io.uform.failure.RuntimeFailure;
import io.uform.host.HostErrors;

/**
 * The host runtime's refusals as {@link UformException}s: the runtime writes the message and says
 * why, and this gives it the status that callers branch on.
 */
final class HostFailures implements HostErrors {

	/** The one instance every executor passes its runtime. */
	static final HostFailures INSTANCE = new HostFailures();

	private HostFailures() {
	}

	@Override
	public RuntimeException error(RuntimeFailure.Status status, String message, Throwable cause) {
		// The same constants by name, as for the other runtime packages' failures (RuntimeFailures).
		return new UformException(Status.valueOf(status.name()), message, cause);
	}

	@Override
	public RuntimeException invalid(String field, Object value, String fix) {
		return UformException.invalid(field, value, fix);
	}

	@Override
	public Throwable copyForCaller(Throwable failure) {
		// Only the exact class: a subclass is copied as any other exception (or thrown as itself).
		if (failure.getClass() == UformException.class) {
			return new UformException(((UformException) failure).status(), failure.getMessage(), failure);
		}
		return null;
	}
}
