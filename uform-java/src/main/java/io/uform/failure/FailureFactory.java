package io.uform.failure;

/**
 * How uform's runtime ({@code io.uform.host}, {@code io.uform.gpu}, {@code io.uform.mesh}) makes the
 * exceptions it throws: one method per kind of failure. The runtime writes every message (what was
 * wrong, with the value, and how to fix it); the API ({@code io.uform}) implements this interface and
 * makes its own exception, so that callers get that exception as it is and the runtime names no API
 * type. The kinds are those of {@code io.uform.UformException.Status}.
 */
public interface FailureFactory {

	/**
	 * A value the runtime cannot use, with the parts a report names; the message reads
	 * {@code Invalid <field> = <value>: <fix>}.
	 * @param field the field or argument, as the user spells it
	 * @param value the value given
	 * @param fix what is wrong with it and what to give instead
	 * @param cause the underlying failure, for a value found wrong only when it was used, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException invalid(String field, Object value, String fix, Throwable cause);

	/**
	 * {@link #invalid(String, Object, String, Throwable)} without a cause.
	 * @param field the field or argument, as the user spells it
	 * @param value the value given
	 * @param fix what is wrong with it and what to give instead
	 * @return the exception to throw
	 */
	default RuntimeException invalid(String field, Object value, String fix) {
		return invalid(field, value, fix, null);
	}

	/**
	 * A call the runtime refuses as it was made, where no one field is wrong (a disagreement between
	 * mesh processes, a call from inside a task).
	 * @param message what was wrong and how to fix it
	 * @return the exception to throw
	 */
	RuntimeException invalidArgument(String message);

	/**
	 * A feature that is not available in this build or on this platform.
	 * @param message what is missing and what to use instead
	 * @return the exception to throw
	 */
	RuntimeException unsupported(String message);

	/**
	 * No GPU the call could use: none present, none visible, the ordinal does not exist, or it is lost.
	 * @param message which device and what to do
	 * @param cause the underlying failure, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException noDevice(String message, Throwable cause);

	/**
	 * Host or device memory (or a scratch ceiling) ran out.
	 * @param message what could not be had and how to make room
	 * @param cause the underlying failure, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException outOfMemory(String message, Throwable cause);

	/**
	 * A wait ran past its limit.
	 * @param message what was awaited and what to do
	 * @return the exception to throw
	 */
	RuntimeException timeout(String message);

	/**
	 * What the call needed was freed.
	 * @param message what was freed and what to make instead
	 * @return the exception to throw
	 */
	RuntimeException freed(String message);

	/**
	 * The calling thread was interrupted while it waited; the runtime sets its interrupt flag again.
	 * @param message what the thread waited for
	 * @param cause the interrupt as the JDK reported it, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException interrupted(String message, Throwable cause);

	/**
	 * The GPU driver reported an error.
	 * @param message the call, the driver's own name for the error, and what to do
	 * @param cause the underlying failure, or {@code null}
	 * @return the exception to throw
	 */
	RuntimeException deviceError(String message, Throwable cause);

	/**
	 * Whether a failure is one this factory made for running out of memory, which the runtime answers
	 * by making room and trying once more.
	 * @param failure what a call threw
	 * @return {@code true} for an {@link #outOfMemory(String, Throwable)} failure
	 */
	boolean isOutOfMemory(Throwable failure);

	/**
	 * The kind of a failure this factory made, as a word that can cross a process boundary (the mesh
	 * writes it into its abort file, and a peer raises the same kind with {@link #ofKind}).
	 * @param failure what a call threw
	 * @return the kind's name ({@code TIMEOUT}, {@code INVALID_ARGUMENT}, ...), or {@code null} where
	 *         this factory did not make {@code failure}
	 */
	String kindOf(Throwable failure);

	/**
	 * A failure of the kind another process named with {@link #kindOf}.
	 * @param kind the kind's name; one this factory does not know (another version wrote it) or
	 *        {@code null} is taken as {@link #invalidArgument(String)}
	 * @param message what was wrong and how to fix it
	 * @return the exception to throw
	 */
	RuntimeException ofKind(String kind, String message);

	/**
	 * A copy of one of this factory's exceptions, thrown by a task on another thread, for the fork's
	 * caller to throw: same class, kind and message, with {@code failure} as its cause.
	 * @param failure what a task threw
	 * @return the copy, or {@code null} where {@code failure} is not one of this factory's exceptions
	 */
	Throwable copyForCaller(Throwable failure);
}
