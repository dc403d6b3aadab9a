package io.uform;

import io.uform.UformException.Status;

/**
 * One process's place among the processes of a multi-host run, made once and borrowed by every
 * trainer. Processes meet through {@code directory/job/}, a directory every host sees.
 *
 * <p>In this version {@link #bootstrap} reports {@link Status#UNSUPPORTED}: the file-based
 * rendezvous is not built yet.
 */
public final class Mesh implements AutoCloseable {

	private final MeshDescription description;

	private volatile boolean freed;

	private Mesh(MeshDescription description) {
		this.description = description;
	}

	/**
	 * Joins this process to the run's mesh, once every process has joined.
	 * @param executor a VRAM executor whose devices are this process's members of the mesh
	 * @param options where this process sits and how the processes meet
	 * @return the mesh
	 * @throws UformException {@link Status#UNSUPPORTED} in this version
	 */
	public static Mesh bootstrap(Executor executor, MeshOptions options) {
		UformException.requireArgument(executor, "executor", "pass the VRAM executor whose devices join the mesh");
		UformException.requireArgument(options, "options", "pass MeshOptions.defaults() for a mesh of one process");
		throw new UformException(Status.UNSUPPORTED, "Mesh.bootstrap: the file-based mesh rendezvous is not built yet "
				+ "in this version (and it needs a VRAM executor, which is not built yet either)");
	}

	/**
	 * Reports the mesh's shape and this process's place in it.
	 * @return the description
	 * @throws UformException {@link Status#FREED} after {@link #free()}
	 */
	public MeshDescription describe() {
		if (this.freed) {
			throw new UformException(Status.FREED, "This mesh was freed; bootstrap a new one");
		}
		return this.description;
	}

	/**
	 * Leaves the mesh; every trainer borrowing it must be freed first. A second call does nothing.
	 */
	public void free() {
		this.freed = true;
	}

	/** Same as {@link #free()}, for try-with-resources. */
	@Override
	public void close() {
		free();
	}
}
