package io.uform.onnxruntime;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps a model's native session and tokenizer alive while anything uses them: closing them under a
 * running call crashes the JVM (a SIGSEGV inside ONNX Runtime), so {@link #close} first refuses new
 * callers, waits for the callers in flight to return, then waits for the native calls still running
 * (a request whose caller gave up may still be served) before it releases anything.
 *
 * <h2>Where threads meet</h2>
 * <table>
 * <caption>shared state</caption>
 * <tr><th>field</th><th>written by</th><th>read by</th><th>why it is safe</th></tr>
 * <tr><td>{@code callers}, {@code closing}</td><td>callers ({@link #enter}, {@link #exit}) and
 * {@link #close}, under this object's monitor</td><td>the same, under the monitor</td><td>one
 * monitor; close waits on it until {@code callers} is 0, and no caller enters once
 * {@code closing}</td></tr>
 * <tr><td>{@code closed}</td><td>{@link #close}, under {@code natives}' write lock</td><td>every native
 * call, under a read lock ({@link #useNatives})</td><td>the lock orders them: a native call either
 * finishes before the release or sees {@code closed} and is refused</td></tr>
 * </table>
 * Lock order: this monitor is never held while {@code natives} is taken.
 */
final class ModelGate {

	private final String model;

	private final ReentrantReadWriteLock natives = new ReentrantReadWriteLock();

	private int callers;

	private boolean closing;

	private boolean closed;

	ModelGate(String model) {
		this.model = model;
	}

	/**
	 * Lets a caller in; pair with {@link #exit()}.
	 * @throws IllegalStateException once the model is closing
	 */
	synchronized void enter() {
		if (this.closing) {
			throw closedError();
		}
		this.callers++;
	}

	/** A caller returned. */
	synchronized void exit() {
		this.callers--;
		if (this.callers == 0) {
			notifyAll();
		}
	}

	/**
	 * Takes the native calls' lock.
	 * @return the held read lock, to unlock when the native call returns
	 * @throws IllegalStateException once the model is closed
	 */
	Lock useNatives() {
		Lock read = this.natives.readLock();
		read.lock();
		if (this.closed) {
			read.unlock();
			throw closedError();
		}
		return read;
	}

	/**
	 * Refuses new callers, waits for those in flight and the native calls running, then releases.
	 * Waits through interrupts (releasing under a running call would crash), and keeps the interrupt.
	 * @param release frees the natives; runs at most once
	 */
	void close(Runnable release) {
		boolean interrupted = false;
		synchronized (this) {
			this.closing = true;
			while (this.callers > 0) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		this.natives.writeLock().lock();
		try {
			if (!this.closed) {
				this.closed = true;
				release.run();
			}
		}
		finally {
			this.natives.writeLock().unlock();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private IllegalStateException closedError() {
		return new IllegalStateException("model '" + this.model + "' is closed; nothing more can be embedded with it "
				+ "(load it again to use it)");
	}
}
