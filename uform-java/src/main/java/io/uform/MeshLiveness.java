package io.uform;

import java.util.Objects;

/**
 * Whether a mesh's processes all live, as this process knows: {@link Mesh#liveness()} answers it and
 * {@link Mesh#onBroken} listeners get it. Kept apart from {@link MeshDescription}, which mirrors the
 * seed's description and does not change once the mesh joined.
 *
 * <p>Every process proves its life through the mesh directory and a few others watch it (see
 * {@code docs/mesh.md}, <em>Liveness</em>); one whose proof stands still for the liveness timeout is
 * dead, and the mesh of every process that learns of it is
 * {@link State#BROKEN}: a run whose member died cannot go on, and must be restarted.
 *
 * @param state the mesh's state
 * @param deadIndex the index of the process that died; {@code null} while none did
 * @param deadHost its host; {@code null} while none died
 * @param deadPid its pid; {@code null} while none died
 * @param reason why it counts as dead and who found it; {@code null} while none died
 */
public record MeshLiveness(State state, Integer deadIndex, String deadHost, Long deadPid, String reason) {

	/** A mesh's state, as its process knows it. */
	public enum State {
		/** Every process is a member, as far as this one knows (a run with no peers always is). */
		JOINED,
		/** A process of the run died: the run cannot go on; this process should stop its work. */
		BROKEN,
		/**
		 * The others declared this process dead (its proof of life stood still past the liveness timeout:
		 * paused, swapped out, cut off from the directory) and went on without it: its mesh calls fail.
		 */
		EXPELLED,
		/** This process freed the mesh. */
		FREED
	}

	/** Checks the state. */
	public MeshLiveness {
		Objects.requireNonNull(state, "state");
	}

	static final MeshLiveness JOINED = new MeshLiveness(State.JOINED, null, null, null, null);

	static final MeshLiveness FREED = new MeshLiveness(State.FREED, null, null, null, null);

	/**
	 * Who died and why, as one line: for a log, a health detail, an exception.
	 * @return like {@code index 2 (host node-c, pid 4242) died: …}, or the state's name when none died
	 */
	public String describe() {
		if (this.deadIndex == null) {
			return this.state.name().toLowerCase(java.util.Locale.ROOT);
		}
		String who = "index " + this.deadIndex + " (host " + this.deadHost + ", pid " + this.deadPid + ")";
		return (this.state == State.EXPELLED) ? "this process, " + who + ", was expelled: " + this.reason
				: who + " died: " + this.reason;
	}
}
