package io.uform;

import java.util.Objects;

/**
 * The one exception every uform call throws: a {@link Status} a program can branch on, and a
 * message a person can act on (what was wrong, with the value, and how to fix it).
 *
 * <p>It mirrors uform's {@code uform_status_t}: each failing C call returns a status and sets a
 * message; here the two travel together.
 */
public class UformException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** Why a uform call failed. */
	public enum Status {
		/** A config field or argument holds a value uform cannot use; the message names it. */
		INVALID_ARGUMENT,
		/** The feature is not available in this build or on this platform. */
		UNSUPPORTED,
		/** No GPU the call could use: none present, none visible, or the ordinal does not exist. */
		NO_DEVICE,
		/** Host or device memory (or a scratch ceiling) ran out. */
		OUT_OF_MEMORY,
		/** A wait ran past its limit: a peer that did not join, a deferred slot that did not free. */
		TIMEOUT,
		/** The executor or mesh was freed; nothing can run on it any more. */
		FREED,
		/**
		 * The calling thread was interrupted while it waited, so the call did not happen; its interrupt
		 * flag is set again. Java's own addition: C threads have no interrupts.
		 */
		INTERRUPTED,
		/** The GPU driver reported an error; the message carries the driver's own name for it. */
		DEVICE_ERROR
	}

	private final Status status;

	private final String field;

	private final String value;

	private final String fix;

	/**
	 * Makes an exception.
	 * @param status why the call failed
	 * @param message what was wrong and how to fix it
	 */
	public UformException(Status status, String message) {
		this(status, message, null, null, null, null);
	}

	/**
	 * Makes an exception with a cause.
	 * @param status why the call failed
	 * @param message what was wrong and how to fix it
	 * @param cause the underlying failure
	 */
	public UformException(Status status, String message, Throwable cause) {
		this(status, message, cause, null, null, null);
	}

	private UformException(Status status, String message, Throwable cause, String field, String value, String fix) {
		super(message, cause);
		this.status = Objects.requireNonNull(status, "status");
		this.field = field;
		this.value = value;
		this.fix = fix;
	}

	/**
	 * Why the call failed.
	 * @return the status, never {@code null}
	 */
	public Status status() {
		return this.status;
	}

	/**
	 * Shorthand for an {@link Status#INVALID_ARGUMENT} failure about one named field.
	 * @param field the config field or argument, as the user spells it
	 * @param value the value that was given
	 * @param fix what to do instead
	 * @return the exception, to be thrown by the caller
	 */
	public static UformException invalid(String field, Object value, String fix) {
		return invalid(field, value, fix, null);
	}

	/**
	 * {@link #invalid(String, Object, String)} for a value found wrong only when it was used, such as a
	 * directory that cannot be written: the underlying failure is kept as the cause.
	 * @param field the config field or argument, as the user spells it
	 * @param value the value that was given
	 * @param fix what went wrong with it and what to do instead
	 * @param cause the underlying failure, or {@code null}
	 * @return the exception, to be thrown by the caller
	 */
	public static UformException invalid(String field, Object value, String fix, Throwable cause) {
		return new UformException(Status.INVALID_ARGUMENT, "Invalid " + field + " = " + printable(value) + ": " + fix, cause,
				field, String.valueOf(value), fix);
	}

	/**
	 * A value as uform's messages show it: control and format characters (by code point, so also those
	 * past the basic plane) escaped as {@code \\uXXXX} per char. A message is logged wherever the
	 * failure goes (Spring logs it as it cancels a refresh), and a value refused for holding a terminal
	 * escape sequence or a direction override must not run it there; {@link #value()} keeps the value
	 * as it was given. Public for reports built from {@link #value()}, such as Spring Boot's failure
	 * analysis, to show it the same way.
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
	 * Checks that a required argument was given.
	 * @param <T> the argument's type
	 * @param value the argument
	 * @param name its name, as the caller spells it
	 * @param fix what to pass instead of {@code null}
	 * @return the argument, when not {@code null}
	 * @throws UformException {@link Status#INVALID_ARGUMENT} naming the argument and the fix
	 */
	public static <T> T requireArgument(T value, String name, String fix) {
		if (value == null) {
			throw invalid(name, null, fix);
		}
		return value;
	}

	/**
	 * The config field or argument that was wrong, as uform spells it ({@code threads},
	 * {@code memoryDomains}), so that a caller such as Spring Boot's failure analysis can name its own
	 * property for it.
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
		return "UformException[" + this.status + "]: " + getMessage();
	}
}
