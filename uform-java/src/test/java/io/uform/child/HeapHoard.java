package io.uform.child;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Fills a child JVM's heap and empties it again, for the tests of what uform does when a task or a
 * deferred call leaves no memory. Reachable from every thread, so the heap stays full until
 * {@link #clear()}.
 */
final class HeapHoard {

	private static final List<Object> HOARD = Collections.synchronizedList(new ArrayList<>());

	private HeapHoard() {
	}

	/** Fills the heap in ever smaller pieces, until not even the smallest object fits. */
	static void fill() {
		for (int size = 16 * 1024; size >= 1; size /= 4) {
			try {
				while (true) {
					HOARD.add(new long[size]);
				}
			}
			catch (OutOfMemoryError ex) {
				// Try smaller pieces.
			}
		}
		try {
			while (true) {
				HOARD.add(new Object());
			}
		}
		catch (OutOfMemoryError ex) {
			// Nothing fits.
		}
	}

	/** Lets the collector have it all back. */
	static void clear() {
		HOARD.clear();
	}
}
