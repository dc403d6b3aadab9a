package io.uform;

import io.uform.UformException.Status;
import io.uform.failure.FailureFactory;
import io.uform.failure.Failures;

/**
 * The runtime's failures as {@link UformException}s: the runtime writes the message and picks the
 * kind, and this gives it the status callers branch on. Installed in {@link Failures} as the class is
 * initialised, for {@code io.uform.gpu} and {@code io.uform.mesh}; handed to {@code io.uform.host}.
 */
final class UformFailures implements FailureFactory {

	/** The one instance. */
	static final UformFailures INSTANCE = new UformFailures();

	static {
		Failures.install(INSTANCE);
	}

	private UformFailures() {
	}

	@Override
	public RuntimeException invalid(String field, Object value, String fix, Throwable cause) {
		return UformException.invalid(field, value, fix, cause);
	}

	@Override
	public RuntimeException invalidArgument(String message) {
		return new UformException(Status.INVALID_ARGUMENT, message);
	}

	@Override
	public RuntimeException unsupported(String message) {
		return new UformException(Status.UNSUPPORTED, message);
	}

	@Override
	public RuntimeException noDevice(String message, Throwable cause) {
		return new UformException(Status.NO_DEVICE, message, cause);
	}

	@Override
	public RuntimeException outOfMemory(String message, Throwable cause) {
		return new UformException(Status.OUT_OF_MEMORY, message, cause);
	}

	@Override
	public RuntimeException timeout(String message) {
		return new UformException(Status.TIMEOUT, message);
	}

	@Override
	public RuntimeException freed(String message) {
		return new UformException(Status.FREED, message);
	}

	@Override
	public RuntimeException interrupted(String message, Throwable cause) {
		return new UformException(Status.INTERRUPTED, message, cause);
	}

	@Override
	public RuntimeException deviceError(String message, Throwable cause) {
		return new UformException(Status.DEVICE_ERROR, message, cause);
	}

	@Override
	public boolean isOutOfMemory(Throwable failure) {
		return failure instanceof UformException uform && uform.status() == Status.OUT_OF_MEMORY;
	}

	@Override
	public String kindOf(Throwable failure) {
		return (failure instanceof UformException uform) ? uform.status().name() : null;
	}

	@Override
	public RuntimeException ofKind(String kind, String message) {
		for (Status status : Status.values()) {
			if (status.name().equals(kind)) {
				return new UformException(status, message);
			}
		}
		return new UformException(Status.INVALID_ARGUMENT, message);
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
