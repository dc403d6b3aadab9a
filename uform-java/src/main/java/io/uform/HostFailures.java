package io.uform;

import io.uform.UformException.Status;
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
	public RuntimeException error(Why why, String message, Throwable cause) {
		return new UformException(status(why), message, cause);
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

	private static Status status(Why why) {
		return switch (why) {
			case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
			case OUT_OF_MEMORY -> Status.OUT_OF_MEMORY;
			case TIMEOUT -> Status.TIMEOUT;
			case FREED -> Status.FREED;
			case INTERRUPTED -> Status.INTERRUPTED;
		};
	}
}
