package io.uform.host;

import java.lang.reflect.Constructor;
import java.util.Arrays;

import io.uform.failure.FailureFactory;

/**
 * Makes the throwable a fork rethrows when its tasks failed. For a task that failed on another
 * thread, that is a copy of the task's throwable, of the same class and with the same message, made
 * on the calling thread so that its stack shows where the fork was called, with the task's own
 * throwable as its cause. This is what
 * {@link java.util.concurrent.ForkJoinTask} does too, so a caller still catches the type it expects
 * and sees both the caller's frames and the worker's.
 */
final class ForkFailure {

	private ForkFailure() {
	}

	/**
	 * What a fork throws for its threads' failures (see "Failures" in {@link HostPool}'s class comment),
	 * and clears them.
	 * @param all each thread's failure, by thread index, {@code null} where it did not fail; cleared
	 * @param executor the executor's name, for a failure that was lost
	 * @param errors copies the API's own exceptions
	 * @return the throwable the fork throws
	 */
	static Throwable ofFork(Throwable[] all, String executor, FailureFactory errors) {
		Throwable first = null;
		int firstThread = -1;
		int count = 0;
		for (int t = 0; t < all.length; t++) {
			if (all[t] != null) {
				if (first == null) {
					first = all[t];
					firstThread = t;
				}
				count++;
			}
		}
		try {
			if (first == null) {
				return new IllegalStateException("a task of executor '" + executor + "' failed, but its failure was lost");
			}
			if (count == 1 && firstThread == 0) {
				return first;
			}
			// Copying allocates; on a full heap it gives back the original (see ForkFailure).
			Throwable thrown = copyForCaller(first, errors);
			if (thrown != first) {
				for (Throwable other : all) {
					if (other != null && other != first) {
						thrown.addSuppressed(other);
					}
				}
			}
			return thrown;
		}
		catch (Throwable ex) {
			// Out of memory while adding the others: the first failure alone is still the right answer.
			return first;
		}
		finally {
			// Cleared whatever happened above, or the next fork would throw this one's failures.
			Arrays.fill(all, null);
		}
	}

	/**
	 * A copy of {@code failure} for the calling thread to throw, or {@code failure} itself where no
	 * faithful copy can be made: a {@link VirtualMachineError} (copying allocates, and an out-of-memory
	 * error must not be replaced by another), or a class without a public {@code (String, Throwable)}
	 * or {@code (String)} constructor. The API's own exceptions, which carry a status, {@code errors}
	 * copies.
	 * @param failure what a task threw
	 * @param errors copies the API's own exceptions; {@code null} where there are none (a warm-up)
	 * @return a copy whose cause is {@code failure}, or {@code failure}
	 */
	static Throwable copyForCaller(Throwable failure, FailureFactory errors) {
		if (failure instanceof VirtualMachineError) {
			return failure;
		}
		try {
			Throwable copy = (errors != null) ? errors.copyForCaller(failure) : null;
			if (copy == null) {
				copy = construct(failure);
			}
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
