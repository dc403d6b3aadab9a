package io.uform.spring.autoconfigure;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

import io.uform.Mesh;
import io.uform.MeshLiveness;

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
 *
 * <h2>When the mesh breaks</h2>
 * A process of the run that dies breaks every other's mesh ({@link Mesh#onBroken}). This lifecycle then
 * logs it (ERROR: the run must be restarted), publishes a {@link UformMeshBrokenEvent}, and, only with
 * {@code uform.mesh.close-context-when-broken}, closes the context, on a thread of its own (the
 * liveness thread that reports it must not wait for the close, which frees the mesh). Off by default:
 * closing a service's context takes down what does not need the mesh too (its web endpoints, its
 * health, which reports the broken mesh DOWN for the orchestrator to act on), so the application or
 * the orchestrator decides.
 */
public class UformMeshLifecycle implements SmartLifecycle {

	/** The highest phase: stopped before everything else, the web server included. */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

	private static final Log logger = LogFactory.getLog(UformMeshLifecycle.class);

	private final String beanName;

	private final Mesh mesh;

	private final ConfigurableApplicationContext context;

	private final boolean closeContextWhenBroken;

	private volatile boolean running;

	private final AtomicBoolean watching = new AtomicBoolean();

	/**
	 * Makes the lifecycle of one mesh bean.
	 * @param beanName the mesh's bean name, for the log
	 * @param mesh the joined mesh
	 * @param context where a broken mesh is published, and which it closes when asked to
	 * @param closeContextWhenBroken whether a broken mesh closes the context
	 */
	public UformMeshLifecycle(String beanName, Mesh mesh, ConfigurableApplicationContext context,
			boolean closeContextWhenBroken) {
		this.beanName = beanName;
		this.mesh = mesh;
		this.context = context;
		this.closeContextWhenBroken = closeContextWhenBroken;
	}

	@Override
	public void start() {
		// Joined when the bean was made; see the class comment.
		this.running = true;
		if (this.watching.compareAndSet(false, true)) {
			this.mesh.onBroken(this::broken);
		}
	}

	private void broken(MeshLiveness liveness) {
		logger.error("uform mesh bean '" + this.beanName + "' is broken: " + liveness.describe()
				+ ". A run whose process died cannot go on: restart the run, every process of it"
				+ (this.closeContextWhenBroken ? "; closing the application context (uform.mesh.close-context-when-broken)"
						: ""));
		this.context.publishEvent(new UformMeshBrokenEvent(this.mesh, this.beanName, liveness));
		if (this.closeContextWhenBroken) {
			Thread closer = new Thread(this.context::close, "uform-mesh-broken-close");
			closer.start();
		}
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
