package io.uform.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads small sysfs attribute files where an absent or unreadable file is an ordinary answer (a
 * board without a sensor, a driver that returns {@code EBUSY}), not an error.
 */
final class SysfsFiles {

	private SysfsFiles() {
	}

	/**
	 * The file's text.
	 * @param file the attribute
	 * @return its content, or {@code null} when it cannot be read
	 */
	static String text(Path file) {
		try {
			return Files.isReadable(file) ? Files.readString(file) : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * The file's single decimal number.
	 * @param file the attribute
	 * @return the number, or {@code null} when unreadable or not a number
	 */
	static Long number(Path file) {
		String text = text(file);
		if (text == null) {
			return null;
		}
		try {
			return Long.parseLong(text.trim());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}
}
