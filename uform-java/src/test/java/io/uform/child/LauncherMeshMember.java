package io.uform.child;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * One process of a mesh started by a launcher (run with {@code -Duform.devices.simulated=1}; the
 * Slurm check, {@code scripts/slurm/check.sh}, starts it with {@code srun}): its only setting is the
 * directory, its first argument; the index, count and job come from the launcher's variables.
 * Prints {@code MESH index=… count=… job=… pid=…} once joined and {@code LEFT index=…} once it left, or
 * {@code FAILED status=… message=…} and exits 3. With a second argument, a liveness timeout in
 * milliseconds, it stays joined until the mesh breaks (a task of the run died), prints
 * {@code BROKEN index=… dead=… reason=…} and then leaves.
 */
public final class LauncherMeshMember {

	private LauncherMeshMember() {
	}

	public static void main(String[] args) throws InterruptedException {
		Executor executor = Executor.forVram();
		Mesh mesh;
		MeshOptions options = MeshOptions.fromLauncher().withDirectory(Path.of(args[0]));
		if (args.length > 1) {
			options = options.withLivenessTimeout(Duration.ofMillis(Long.parseLong(args[1])));
		}
		try {
			mesh = Mesh.bootstrap(executor, options);
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
				+ shape.job() + " peers=" + String.join(",", shape.peerHosts()) + " pid=" + ProcessHandle.current().pid());
		System.out.flush();
		if (args.length > 1) {
			CountDownLatch broken = new CountDownLatch(1);
			mesh.onBroken((liveness) -> {
				System.out.println("BROKEN index=" + shape.hostDomainIndex() + " dead=" + liveness.deadIndex() + " reason="
						+ liveness.describe());
				System.out.flush();
				broken.countDown();
			});
			broken.await();
		}
		mesh.free();
		executor.free();
		System.out.println("LEFT index=" + shape.hostDomainIndex());
		System.out.flush();
	}
}
