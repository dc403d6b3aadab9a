package io.uform.spring.autoconfigure.child;

import java.nio.file.Path;
import java.time.Duration;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshOptions;

/**
 * Child JVM (run with {@code -Duform.devices.simulated=1}): one process of a mesh, for the tests of a
 * context whose peer dies. Arguments: directory, job, index, count, liveness timeout in milliseconds.
 * Prints {@code JOINED} once joined, then stays until it is killed.
 */
public final class MeshPeer {

	private MeshPeer() {
	}

	public static void main(String[] args) throws InterruptedException {
		Executor executor = Executor.forVram();
		Mesh mesh = Mesh.bootstrap(executor, new MeshOptions(Integer.valueOf(args[2]), Integer.valueOf(args[3]), null,
				Path.of(args[0]), args[1], Duration.ofSeconds(30))
			.withLivenessTimeout(Duration.ofMillis(Long.parseLong(args[4]))));
		System.out.println("JOINED " + mesh.describe().hostDomainIndex());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}
}
