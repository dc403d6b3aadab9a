package io.uform.host;

import java.lang.reflect.Constructor;

import io.uform.UformException;

/**
 * Makes the throwable a fork rethrows when a task failed on another thread: a copy of the task's
 * throwable, of the same class and with the same message, made on the calling thread so that its
 * stack shows where the fork was called, with the task's own throwable as its cause. This is what
 * {@link java.util.concurrent.ForkJoinTask} does too, so a caller still catches the type it expects
 * and sees both the caller's frames and the worker's.
 */
final class ForkFailure {

	private ForkFailure() {
	}

	/**
	 * A copy of {@code failure} for the calling thread to throw, or {@code failure} itself where no
	 * faithful copy can be made: a {@link VirtualMachineError} (copying allocates, and an out-of-memory
	 * error must not be replaced by another), or a class without a public {@code (String, Throwable)}
	 * or {@code (String)} constructor.
	 * @param failure what a task threw
	 * @return a copy whose cause is {@code failure}, or {@code failure}
	 */
	static Throwable copyForCaller(Throwable failure) {
		if (failure instanceof VirtualMachineError) {
			return failure;
		}
		try {
			Throwable copy = construct(failure);
			if (copy != null && copy.getClass() == failure.getClass() && copy.getCause() == failure) {
				return copy;
			}
		}
		catch (Throwable ex) {
			// Not copyable (no access, a constructor that throws, a linkage problem): throw the original.
		}
		return failure;
	}

	private static Throwable construct(Throwable failure) throws ReflectiveOperationException {
		String message = failure.getMessage();
		if (failure.getClass() == UformException.class) {
			return new UformException(((UformException) failure).status(), message, failure);
		}
		Class<? extends Throwable> type = failure.getClass();
		try {
			Constructor<? extends Throwable> withCause = type.getConstructor(String.class, Throwable.class);
			return withCause.newInstance(message, failure);
		}
		catch (NoSuchMethodException ex) {
			Constructor<? extends Throwable> plain = type.getConstructor(String.class);
			Throwable copy = plain.newInstance(message);
			if (copy.getCause() == null) {
				copy.initCause(failure);
			}
			return copy;
		}
	}
}
