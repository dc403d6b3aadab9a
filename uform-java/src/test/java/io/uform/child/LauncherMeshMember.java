package io.uform.child;

import java.nio.file.Path;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * One process of a mesh started by a launcher (run with {@code -Duform.devices.simulated=1}; the
 * Slurm check, {@code scripts/slurm/check.sh}, starts it with {@code srun}): its only setting is the
 * directory, its first argument; the index, count and job come from the launcher's variables.
 * Prints {@code MESH index=… count=… job=…} once joined and {@code LEFT index=…} once it left, or
 * {@code FAILED status=… message=…} and exits 3.
 */
public final class LauncherMeshMember {

	private LauncherMeshMember() {
	}

	public static void main(String[] args) {
		Executor executor = Executor.forVram();
		Mesh mesh;
		try {
			mesh = Mesh.bootstrap(executor, MeshOptions.fromLauncher().withDirectory(Path.of(args[0])));
		}
		catch (UformException ex) {
			System.out.println("FAILED status=" + ex.status() + " message=" + ex.getMessage());
			System.out.flush();
			executor.free();
			System.exit(3);
			return;
		}
		MeshDescription shape = mesh.describe();
		System.out.println("MESH index=" + shape.hostDomainIndex() + " count=" + shape.hostDomainCount() + " job="
				+ shape.job() + " peers=" + String.join(",", shape.peerHosts()));
		System.out.flush();
		mesh.free();
		executor.free();
		System.out.println("LEFT index=" + shape.hostDomainIndex());
		System.out.flush();
	}
}
