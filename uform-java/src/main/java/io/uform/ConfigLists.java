package io.uform;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Copies list-valued config fields. Unlike {@link List#copyOf} it keeps {@code null} elements, so
 * that validation can reject them with a message naming the field instead of an NPE at build time.
 */
final class ConfigLists {

	private ConfigLists() {
	}

	static <T> List<T> copy(List<T> list) {
		return (list != null) ? Collections.unmodifiableList(new ArrayList<>(list)) : null;
	}
}
