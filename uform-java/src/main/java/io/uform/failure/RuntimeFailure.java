package io.uform.failure;

import java.util.Objects;

/**
 * A failure of uform's runtime (GPU, mesh): a {@link Status} and a message that says what was wrong
 * and how to fix it. The API ({@code io.uform}) catches it where it calls the runtime and throws the
 * {@code io.uform.UformException} with the same status, message, field, value and fix, so that users
 * never see this type. The runtime names no API type, so that the two packages do not import each
 * other.
 */
public final class RuntimeFailure extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Why a runtime call failed: the constants of {@code io.uform.UformException.Status}, by name
	 * (a test keeps the two alike), so that the API's exception carries the same one.
	 */
	public enum Status {
		/** A field or argument holds a value uform cannot use; the message names it. */
		INVALID_ARGUMENT,
		/** The feature is not available in this build or on this platform. */
		UNSUPPORTED,
		/** No GPU the call could use. */
		NO_DEVICE,
		/** Host or device memory (or a scratch ceiling) ran out. */
		OUT_OF_MEMORY,
		/** A wait ran past its limit. */
		TIMEOUT,
		/** What the call needed was freed. */
		FREED,
		/** The calling thread was interrupted while it waited; its interrupt flag is set again. */
		INTERRUPTED,
		/** The GPU driver reported an error. */
		DEVICE_ERROR
	}

	private final Status status;

	private final String field;

	private final String value;

	private final String fix;

	/**
	 * Makes a failure.
	 * @param status why the call failed
	 * @param message what was wrong and how to fix it
	 */
	public RuntimeFailure(Status status, String message) {
		this(status, message, null, null, null, null);
	}

	/**
	 * Makes a failure with a cause.
	 * @param status why the call failed
	 * @param message what was wrong and how to fix it
	 * @param cause the underlying failure
	 */
	public RuntimeFailure(Status status, String message, Throwable cause) {
		this(status, message, cause, null, null, null);
	}

	private RuntimeFailure(Status status, String message, Throwable cause, String field, String value, String fix) {
		super(message, cause);
		this.status = Objects.requireNonNull(status, "status");
		this.field = field;
		this.value = value;
		this.fix = fix;
	}

	/**
	 * Shorthand for an {@link Status#INVALID_ARGUMENT} failure about one named field, worded as
	 * {@code UformException.invalid(field, value, fix)} words it.
	 * @param field the field or argument, as the user spells it
	 * @param value the value that was given
	 * @param fix what to do instead
	 * @return the failure, to be thrown by the caller
	 */
	public static RuntimeFailure invalid(String field, Object value, String fix) {
		return invalid(field, value, fix, null);
	}

	/**
	 * {@link #invalid(String, Object, String)} for a value found wrong only when it was used, such as a
	 * directory that cannot be written: the underlying failure is kept as the cause.
	 * @param field the field or argument, as the user spells it
	 * @param value the value that was given
	 * @param fix what went wrong with it and what to do instead
	 * @param cause the underlying failure, or {@code null}
	 * @return the failure, to be thrown by the caller
	 */
	public static RuntimeFailure invalid(String field, Object value, String fix, Throwable cause) {
		return new RuntimeFailure(Status.INVALID_ARGUMENT, "Invalid " + field + " = " + printable(value) + ": " + fix,
				cause, field, String.valueOf(value), fix);
	}

	/**
	 * Checks that a required argument was given.
	 * @param <T> the argument's type
	 * @param value the argument
	 * @param name its name, as the caller spells it
	 * @param fix what to pass instead of {@code null}
	 * @return the argument, when not {@code null}
	 * @throws RuntimeFailure {@link Status#INVALID_ARGUMENT} naming the argument and the fix
	 */
	public static <T> T requireArgument(T value, String name, String fix) {
		if (value == null) {
			throw invalid(name, null, fix);
		}
		return value;
	}

	/**
	 * A value as uform's messages show it: control and format characters (by code point, so also those
	 * past the basic plane) escaped as {@code \\uXXXX} per char, so that a logged message cannot run a
	 * terminal escape sequence or a direction override it quotes.
	 * @param value the value; {@code null} is shown as {@code null}
	 * @return the value's text, escaped where it needs to be
	 */
	public static String printable(Object value) {
		String text = String.valueOf(value);
		StringBuilder shown = null;
		for (int i = 0; i < text.length();) {
			int c = text.codePointAt(i);
			int chars = Character.charCount(c);
			boolean hidden = Character.isISOControl(c) || Character.getType(c) == Character.FORMAT;
			if (hidden && shown == null) {
				shown = new StringBuilder(text.length() + 16).append(text, 0, i);
			}
			if (hidden) {
				for (int j = i; j < i + chars; j++) {
					shown.append(String.format("\\u%04X", (int) text.charAt(j)));
				}
			}
			else if (shown != null) {
				shown.append(text, i, i + chars);
			}
			i += chars;
		}
		return (shown != null) ? shown.toString() : text;
	}

	/**
	 * Why the call failed.
	 * @return the status, never {@code null}
	 */
	public Status status() {
		return this.status;
	}

	/**
	 * The field or argument that was wrong, as uform spells it.
	 * @return the field, or {@code null} when the failure is not about one field
	 */
	public String field() {
		return this.field;
	}

	/**
	 * The value the wrong field held, as text.
	 * @return the value, or {@code null} when the failure is not about one field
	 */
	public String value() {
		return this.value;
	}

	/**
	 * What to do instead, for a failure about one field.
	 * @return the fix, or {@code null} when the failure is not about one field
	 */
	public String fix() {
		return this.fix;
	}

	@Override
	public String toString() {
		return "RuntimeFailure[" + this.status + "]: " + getMessage();
	}
}
