package io.uform.spring.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

import io.uform.Mesh;

/**
 * Leaves the mesh first when the application context stops: before the web server's graceful
 * shutdown and before any executor is freed (the mesh borrows the VRAM executor, and uform refuses to
 * free an executor under a live mesh), so that the other processes of the run see this one go as soon
 * as it starts shutting down.
 *
 * <h2>Why the join is not in {@link #start()}</h2>
 * Lifecycles start from the lowest phase up and stop from the highest down, so one phase cannot both
 * start before the web server ({@code DEFAULT_PHASE - 2048}) and stop first. The mesh therefore joins
 * when its bean is made, which is also before the web server starts, and gives other beans a joined
 * {@link Mesh} to inject; this lifecycle, at {@link #PHASE}, only leaves. After a stop the mesh stays
 * left: a context restarted with {@code stop()}/{@code start()} does not rejoin (a new run needs a
 * new context).
 */
public class UformMeshLifecycle implements SmartLifecycle {

	/** The highest phase: stopped before everything else, the web server included. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

	private static final Log logger = LogFactory.getLog(UformMeshLifecycle.class);

	private final String beanName;

	private final Mesh mesh;

	private volatile boolean running;

	/**
	 * Makes the lifecycle of one mesh bean.
	 * @param beanName the mesh's bean name, for the log
	 * @param mesh the joined mesh
	 */
	public UformMeshLifecycle(String beanName, Mesh mesh) {
		this.beanName = beanName;
		this.mesh = mesh;
	}

	@Override
	public void start() {
		// Joined when the bean was made; see the class comment.
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		try {
			this.mesh.free();
			logger.info("uform mesh bean '" + this.beanName + "' left the run");
		}
		catch (RuntimeException ex) {
			// Leaving removes this process's member file; failing to must not stop the context closing.
			logger.warn("uform mesh bean '" + this.beanName + "' could not leave cleanly: " + ex.getMessage(), ex);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}
}
