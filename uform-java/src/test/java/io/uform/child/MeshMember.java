package io.uform.child;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.uform.Executor;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.MeshOptions;
import io.uform.UformException;

/**
 * Child JVM (started with {@code -Duform.devices.simulated=1}): one process of a mesh. Makes a VRAM
 * executor on the simulated device, bootstraps with the options its arguments give, prints the
 * description on one line, stays a while if asked, frees the mesh and the executor, and exits.
 *
 * <p>Arguments, {@code key=value}: {@code index}, {@code count}, {@code gpus} (per multimem domain),
 * {@code dir}, {@code job}, {@code timeoutMs}, {@code livenessMs}, {@code holdMs} (how long to stay
 * after joining; a broken mesh ends the stay early).
 * Prints {@code MEMBER pid=…} first, then {@code MESH index=… count=… …}, {@code BROKEN state=… dead=…}
 * when the mesh breaks while it stays, {@code LIVENESS state=…} once the stay ends (and
 * {@code DESCRIBE FAILED status=… message=…} when the mesh refuses to describe itself then), and exits 0;
 * or {@code FAILED status=… afterMs=… message=…} and exits 3.
 */
public final class MeshMember {

	private MeshMember() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> given = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			given.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		System.out.println("MEMBER pid=" + ProcessHandle.current().pid());
		System.out.flush();
		MeshOptions options = new MeshOptions(integer(given, "index"), integer(given, "count"), integer(given, "gpus"),
				given.containsKey("dir") ? Path.of(given.get("dir")) : null, given.get("job"),
				given.containsKey("timeoutMs") ? Duration.ofMillis(Long.parseLong(given.get("timeoutMs"))) : null)
			.withLivenessTimeout(given.containsKey("livenessMs") ? Duration.ofMillis(Long.parseLong(given.get("livenessMs")))
					: null);
		Executor executor = Executor.forVram();
		long start = System.nanoTime();
		Mesh mesh;
		try {
			mesh = Mesh.bootstrap(executor, options);
		}
		catch (UformException ex) {
			long afterMs = (System.nanoTime() - start) / 1_000_000;
			System.out.println("FAILED status=" + ex.status() + " afterMs=" + afterMs + " message=" + ex.getMessage());
			System.out.flush();
			executor.free();
			System.exit(3);
			return;
		}
		MeshDescription shape = mesh.describe();
		System.out.println("MESH index=" + shape.hostDomainIndex() + " count=" + shape.hostDomainCount() + " gpusPerHost="
				+ shape.gpusPerHost() + " gpusPerMultimemDomain=" + shape.gpusPerMultimemDomain() + " multimemDomains="
				+ shape.multimemDomains() + " tier=" + shape.multimemTier().label() + " job=" + shape.job() + " peers="
				+ String.join(",", shape.peerHosts()));
		System.out.flush();
		long joined = System.nanoTime();
		CountDownLatch broken = new CountDownLatch(1);
		mesh.onBroken((liveness) -> {
			System.out.println("BROKEN state=" + liveness.state() + " dead=" + liveness.deadIndex() + " pid="
					+ liveness.deadPid() + " afterJoinMs=" + (System.nanoTime() - joined) / 1_000_000 + " reason="
					+ liveness.describe());
			System.out.flush();
			broken.countDown();
		});
		broken.await(Long.parseLong(given.getOrDefault("holdMs", "0")), TimeUnit.MILLISECONDS);
		System.out.println("LIVENESS state=" + mesh.liveness().state());
		try {
			mesh.describe();
		}
		catch (UformException ex) {
			System.out.println("DESCRIBE FAILED status=" + ex.status() + " message=" + ex.getMessage());
		}
		System.out.flush();
		if (Boolean.parseBoolean(given.getOrDefault("exitWithoutFree", "false"))) {
			// As an application that forgets free(): the JVM's exit must still leave the mesh.
			System.out.println("EXITING");
			System.out.flush();
			System.exit(0);
		}
		mesh.free();
		executor.free();
		System.out.println("LEFT");
		System.out.flush();
	}

	private static Integer integer(Map<String, String> given, String key) {
		return given.containsKey(key) ? Integer.valueOf(given.get(key)) : null;
	}
}
