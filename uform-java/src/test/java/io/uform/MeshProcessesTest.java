package io.uform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException.Status;
import io.uform.child.MeshMember;
import io.uform.gpu.SimulatedRuntime;
import io.uform.mesh.FileRendezvous;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mesh's main scenarios with real processes, one JVM each ({@link MeshMember} on a simulated
 * device): four processes join one job and agree; runs follow each other in one directory; one that
 * never starts fails the others in time; a process killed mid-bootstrap leaves a record the next run
 * reports; two processes claiming one index both fail. Every child is killed by pid when its test
 * ends.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MeshProcessesTest {

	/** Small and quick to start: these children only meet and leave. */
	private static final List<String> JVM = List.of("-Duform.devices.simulated=1", "-Xmx64m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-Xshare:auto");

	private static final Pattern MESH = Pattern.compile("MESH index=(\\d+) count=(\\d+) .* peers=(\\S+)");

	@TempDir
	Path directory;

	private final List<ChildJvm.Running> children = new ArrayList<>();

	@AfterEach
	void killTheChildren() throws InterruptedException {
		for (ChildJvm.Running child : this.children) {
			child.kill();
		}
	}

	private ChildJvm.Running member(String job, int index, int count, long timeoutMs) throws IOException {
		ChildJvm.Running child = ChildJvm.start(MeshMember.class, JVM, List.of("index=" + index, "count=" + count,
				"dir=" + this.directory, "job=" + job, "timeoutMs=" + timeoutMs));
		this.children.add(child);
		return child;
	}

	@Test
	void fourProcessesJoinOneJobAndAgreeOnTheirPlaces() throws Exception {
		List<ChildJvm.Running> four = new ArrayList<>();
		for (int index = 0; index < 4; index++) {
			four.add(member("four", index, 4, 40_000));
		}
		Set<String> peers = new HashSet<>();
		for (int index = 0; index < 4; index++) {
			ChildJvm.Result result = four.get(index).await(60);
			assertThat(result.exitCode()).as(result.output()).isZero();
			Matcher line = MESH.matcher(result.output());
			assertThat(line.find()).as(result.output()).isTrue();
			assertThat(line.group(1)).isEqualTo(Integer.toString(index));
			assertThat(line.group(2)).isEqualTo("4");
			assertThat(result.output()).contains("gpusPerHost=1 gpusPerMultimemDomain=1 multimemDomains=4 tier=peer-read "
					+ "job=four").contains("LEFT");
			peers.add(line.group(3));
		}
		// Every process lists the same hosts by index: here all four are this host.
		assertThat(peers).containsExactly(String.join(",", List.of(host(), host(), host(), host())));
		// The last one out removed the job's directory.
		assertThat(this.directory.resolve("four")).doesNotExist();
	}

	/**
	 * Runs that follow each other in one directory: after a run's processes free the mesh, a new job
	 * joins there, and so does a new run under the first job's name (a clean finish leaves nothing that
	 * the next run could take for a crashed one's records).
	 */
	@Test
	void afterFreeANewJobAndARunOfTheSameJobJoinInTheSameDirectory() throws Exception {
		for (String job : List.of("first", "second", "first")) {
			List<ChildJvm.Running> two = List.of(member(job, 0, 2, 40_000), member(job, 1, 2, 40_000));
			for (ChildJvm.Running child : two) {
				ChildJvm.Result result = child.await(60);
				assertThat(result.exitCode()).as(result.output()).isZero();
				assertThat(result.output()).contains("job=" + job).contains("LEFT");
			}
			assertThat(names(this.directory)).as("after run of %s", job).isEmpty();
		}
	}

	@Test
	void processesThatExitWithoutFreeStillLeaveAndTheLastOneRemovesTheJob() throws Exception {
		List<ChildJvm.Running> two = new ArrayList<>();
		for (int index = 0; index < 2; index++) {
			ChildJvm.Running child = ChildJvm.start(MeshMember.class, JVM, List.of("index=" + index, "count=2",
					"dir=" + this.directory, "job=forgetful", "timeoutMs=40000", "exitWithoutFree=true"));
			this.children.add(child);
			two.add(child);
		}
		for (ChildJvm.Running child : two) {
			ChildJvm.Result result = child.await(60);
			assertThat(result.exitCode()).as(result.output()).isZero();
			assertThat(result.output()).contains("EXITING").doesNotContain("LEFT");
		}
		assertThat(this.directory.resolve("forgetful")).as("left by the shutdown hooks").doesNotExist();
	}

	@Test
	void whenOneProcessNeverStartsTheOthersFailWithinTheTimeoutNamingIt() throws Exception {
		List<ChildJvm.Running> three = new ArrayList<>();
		for (int index = 0; index < 3; index++) {
			three.add(member("three-of-four", index, 4, 3_000));
		}
		for (ChildJvm.Running child : three) {
			ChildJvm.Result result = child.await(30);
			assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
			assertThat(result.output()).contains("FAILED status=TIMEOUT").contains("index 3 never joined")
				.contains("timed out after 3 s");
			Matcher after = Pattern.compile("afterMs=(\\d+)").matcher(result.output());
			assertThat(after.find()).isTrue();
			// Within the timeout, give or take the poll and the others' JVM start (one aborts them all).
			assertThat(Long.parseLong(after.group(1))).as(result.output()).isLessThan(3_000 + 2_000);
		}
		assertThat(names(this.directory.resolve("three-of-four"))).noneMatch((name) -> name.startsWith("member-")
				|| name.startsWith("ready-"));
	}

	@Test
	void aProcessKilledMidBootstrapLeavesARecordTheNextRunReports() throws Exception {
		ChildJvm.Running first = member("crashed", 0, 2, 60_000);
		Path record = this.directory.resolve("crashed").resolve("member-0.properties");
		awaitFile(record, first);
		long pid = first.process().pid();
		first.kill();
		assertThat(record).exists();
		// The next run of the same job: this JVM takes index 1.
		SimulatedRuntime runtime = new SimulatedRuntime(1, 16L << 20);
		try (Executor executor = Executor.forVram(ExecutorForVramConfig.defaults(), Gpus.devices(runtime.devices()),
				(device, ordinal) -> runtime)) {
			MeshOptions options = new MeshOptions(1, 2, null, this.directory, "crashed", Duration.ofSeconds(5));
			assertThatThrownBy(() -> Mesh.bootstrap(executor, options)).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
				.hasMessageContaining("left by an earlier run")
				.hasMessageContaining("member-0.properties of index 0 (host " + host() + ", pid " + pid + "), written 20")
				.hasMessageContaining("its process is no longer running")
				.hasMessageContaining("remove " + this.directory.resolve("crashed"))
				.hasMessageContaining("use a new job name");
		}
		// Reported, not joined: nothing of this run was written. The crashed one's record stays, and its
		// heartbeat where it got that far (whole, or the temporary file of its first beat, named by index 0).
		assertThat(names(this.directory.resolve("crashed"))).contains("member-0.properties")
			.allMatch((name) -> name.endsWith("-0.properties"));
	}

	@Test
	void twoProcessesClaimingOneIndexBothFailNamingBothPids() throws Exception {
		ChildJvm.Running first = member("twice", 1, 2, 30_000);
		awaitFile(this.directory.resolve("twice").resolve("member-1.properties"), first);
		ChildJvm.Running second = member("twice", 1, 2, 30_000);
		long[] pids = { first.process().pid(), second.process().pid() };
		for (ChildJvm.Running child : List.of(first, second)) {
			ChildJvm.Result result = child.await(30);
			assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
			assertThat(result.output()).contains("FAILED status=INVALID_ARGUMENT")
				.contains("index 1 is claimed by two processes")
				.contains("host " + host() + " pid " + pids[0])
				.contains("host " + host() + " pid " + pids[1]);
		}
		assertThat(names(this.directory.resolve("twice"))).noneMatch((name) -> name.startsWith("member-"));
	}

	private static String host() {
		return FileRendezvous.hostName();
	}

	private static void awaitFile(Path file, ChildJvm.Running child) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!Files.exists(file)) {
			assertThat(child.process().isAlive()).as("the child ended before writing %s: %s", file, child.output())
				.isTrue();
			assertThat(System.nanoTime() - deadline).as("%s never appeared: %s", file, child.output()).isNegative();
			Thread.sleep(20);
		}
	}

	private static List<String> names(Path directory) throws IOException {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).sorted().toList();
		}
	}
}
