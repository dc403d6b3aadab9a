package io.uform.spring.autoconfigure;

import org.springframework.context.ApplicationEvent;

import io.uform.Mesh;
import io.uform.MeshLiveness;

/**
 * Published once when the mesh bean breaks: a process of the run died, or this one was expelled (see
 * {@link Mesh#onBroken}). A run whose process died cannot go on; listen for it
 * ({@code @EventListener}) to stop the work that needs the mesh. It comes on the mesh's liveness
 * thread: hand long work to another thread. With {@code uform.mesh.close-context-when-broken} the
 * context closes after the listeners ran.
 */
public class UformMeshBrokenEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient MeshLiveness liveness;

	private final String beanName;

	/**
	 * Makes the event.
	 * @param mesh the mesh that broke, the source
	 * @param beanName its bean name
	 * @param liveness its state and which process died
	 */
	public UformMeshBrokenEvent(Mesh mesh, String beanName, MeshLiveness liveness) {
		super(mesh);
		this.beanName = beanName;
		this.liveness = liveness;
	}

	/**
	 * The mesh that broke.
	 * @return the mesh bean
	 */
	public Mesh getMesh() {
		return (Mesh) getSource();
	}

	/**
	 * The mesh's bean name.
	 * @return the name
	 */
	public String getBeanName() {
		return this.beanName;
	}

	/**
	 * Its state ({@code BROKEN} or {@code EXPELLED}) and which process died, and why.
	 * @return the liveness
	 */
	public MeshLiveness getLiveness() {
		return this.liveness;
	}
}
