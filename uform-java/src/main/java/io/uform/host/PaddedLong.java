package io.uform.host;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@code long} on a cache line of its own, for the counters every thread of a pool hammers (the
 * fork generation, the pending count, the dynamic cursor). Without the padding two such counters
 * share a 64-byte line and every write by one thread invalidates the other's cache (false sharing).
 *
 * <p>The padding lives in superclasses because the JVM lays out a superclass's fields before its
 * subclass's, while it may reorder fields within one class.
 */
final class PaddedLong extends PaddedLongValue {

	long q0, q1, q2, q3, q4, q5, q6, q7;

	PaddedLong(long initial) {
		VALUE.setVolatile(this, initial);
	}

	long getVolatile() {
		return (long) VALUE.getVolatile(this);
	}

	void setVolatile(long value) {
		VALUE.setVolatile(this, value);
	}

	long getOpaque() {
		return (long) VALUE.getOpaque(this);
	}

	/** A write other threads see eventually, with no ordering; for a single writer's progress marks. */
	void setOpaque(long value) {
		VALUE.setOpaque(this, value);
	}

	/** A write other threads see eventually and in order, without a full fence; for single-writer counters. */
	void setRelease(long value) {
		VALUE.setRelease(this, value);
	}

	boolean compareAndSet(long expected, long value) {
		return VALUE.compareAndSet(this, expected, value);
	}

	long getAndAdd(long delta) {
		return (long) VALUE.getAndAdd(this, delta);
	}

	long addAndGet(long delta) {
		return (long) VALUE.getAndAdd(this, delta) + delta;
	}
}

/** Padding before the value. */
abstract class PaddedLongPad {
	long p0, p1, p2, p3, p4, p5, p6, p7;
}

/** The value itself, between two pads. */
abstract class PaddedLongValue extends PaddedLongPad {

	static final VarHandle VALUE;

	static {
		try {
			VALUE = MethodHandles.lookup().findVarHandle(PaddedLongValue.class, "value", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	volatile long value;
}
