package io.uform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.child.MeshMember;
import io.uform.mesh.FileRendezvous;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A member that dies is noticed by every other, with real processes on this host ({@link MeshMember}
 * on a simulated device, short liveness timeouts): killed with SIGKILL mid-join and after the join,
 * paused with SIGSTOP for less than the liveness timeout (still a member) and past it (expelled, which
 * it learns on SIGCONT), and a clean free, which is no death. Every child is killed by pid when its test
 * ends.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MeshLivenessProcessesTest {

	private static final List<String> JVM = List.of("-Duform.devices.simulated=1", "-Xmx64m", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-Xshare:auto");

	/** Margin for a child JVM to notice, print and exit on this busy 2-core machine. */
	private static final long MARGIN_MS = 6_000;

	@TempDir
	Path directory;

	private final List<ChildJvm.Running> children = new ArrayList<>();

	@AfterEach
	void killTheChildren() throws InterruptedException {
		for (ChildJvm.Running child : this.children) {
			if (child.process().isAlive()) {
				signal("CONT", child.process().pid());
			}
			child.kill();
		}
	}

	private ChildJvm.Running member(String job, int index, int count, long livenessMs, long holdMs,
			Map<String, String> env) throws IOException {
		ChildJvm.Running child = ChildJvm.start(MeshMember.class, JVM, List.of("index=" + index, "count=" + count,
				"dir=" + this.directory, "job=" + job, "timeoutMs=60000", "livenessMs=" + livenessMs, "holdMs=" + holdMs),
				env);
		this.children.add(child);
		return child;
	}

	@Test
	void aMemberKilledMidJoinFailsTheOthersWithinTheLivenessTimeoutNamingItAndALateOneOfTheRunToo() throws Exception {
		Map<String, String> run = Map.of("UFORM_MESH_RUN", "test-run-1");
		List<ChildJvm.Running> three = new ArrayList<>();
		for (int index = 0; index < 3; index++) {
			three.add(member("mid-join", index, 4, 1_500, 0, run));
		}
		Path job = this.directory.resolve("mid-join");
		for (int index = 0; index < 3; index++) {
			awaitFile(job.resolve("member-" + index + ".properties"), three.get(index));
		}
		long pid = three.get(2).process().pid();
		long killed = System.nanoTime();
		three.get(2).kill();
		for (ChildJvm.Running child : three.subList(0, 2)) {
			ChildJvm.Result result = child.await(30);
			long afterKillMs = (System.nanoTime() - killed) / 1_000_000;
			assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
			assertThat(result.output()).contains("FAILED status=TIMEOUT")
				.contains("index 2 (host " + host() + ", pid " + pid + ") died before every process joined")
				.contains("restart the run")
				.doesNotContain("never joined")
				.doesNotContain("index 3");
			assertThat(afterKillMs).as(result.output()).isLessThan(1_500 + MARGIN_MS);
		}
		// Index 3 of the same run arrives late: it fails at once on the run's abort, naming the dead one,
		// instead of waiting out its 60 s for processes that gave up.
		ChildJvm.Result late = member("mid-join", 3, 4, 1_500, 0, run).await(30);
		assertThat(late.exitCode()).as(late.output()).isEqualTo(3);
		assertThat(late.output()).contains("of this run (run test-run-1) gave up for every process")
			.contains("index 2 (host " + host() + ", pid " + pid + ") died")
			.contains("Restart the run")
			.doesNotContain("remove " + job);
		assertThat(afterMs(late.output())).isLessThan(10_000);
		assertThat(names(job)).noneMatch((name) -> name.startsWith("member-") || name.startsWith("ready-")
				|| name.startsWith("alive-"));
	}

	@Test
	void aLateMemberThatFindsADeadPeerBesideLiveOnesTellsThemAndNeverSaysRemoveTheDirectory() throws Exception {
		// A long liveness timeout: the waiting ones would not notice the death by themselves in time.
		List<ChildJvm.Running> three = new ArrayList<>();
		for (int index = 0; index < 3; index++) {
			three.add(member("late", index, 4, 30_000, 0, Map.of()));
		}
		Path job = this.directory.resolve("late");
		for (int index = 0; index < 3; index++) {
			awaitFile(job.resolve("member-" + index + ".properties"), three.get(index));
		}
		long pid = three.get(2).process().pid();
		three.get(2).kill();
		ChildJvm.Result late = member("late", 3, 4, 30_000, 0, Map.of()).await(30);
		assertThat(late.exitCode()).as(late.output()).isEqualTo(3);
		assertThat(late.output()).contains("member-2.properties of index 2 (host " + host() + ", pid " + pid + ")")
			.contains("while processes of a run still meeting are there")
			.contains("restart the run")
			.doesNotContain("remove " + job);
		for (ChildJvm.Running child : three.subList(0, 2)) {
			ChildJvm.Result result = child.await(30);
			assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
			assertThat(result.output()).contains("index 3 (host " + host()).contains("gave up for every process")
				.contains("index 2 (host " + host() + ", pid " + pid + ")");
			assertThat(afterMs(result.output())).as("told, not timed out").isLessThan(30_000);
		}
		assertThat(job).as("removed by the last one to give up").doesNotExist();
	}

	@Test
	void aMemberKilledAfterTheJoinBreaksTheMeshOfEveryOtherAndTheLastOneOutStillRemovesTheJob() throws Exception {
		List<ChildJvm.Running> three = new ArrayList<>();
		for (int index = 0; index < 3; index++) {
			three.add(member("after-join", index, 3, 1_500, 60_000, Map.of()));
		}
		for (ChildJvm.Running child : three) {
			awaitOutput(child, "MESH index=");
		}
		long pid = three.get(1).process().pid();
		long killed = System.nanoTime();
		three.get(1).kill();
		for (ChildJvm.Running child : List.of(three.get(0), three.get(2))) {
			awaitOutput(child, "BROKEN");
			long afterKillMs = (System.nanoTime() - killed) / 1_000_000;
			ChildJvm.Result result = child.await(30);
			assertThat(result.exitCode()).as(result.output()).isZero();
			assertThat(result.output()).contains("BROKEN state=BROKEN dead=1 pid=" + pid)
				.contains("index 1 (host " + host() + ", pid " + pid + ") died")
				.contains("LIVENESS state=BROKEN")
				.doesNotContain("DESCRIBE FAILED")
				.contains("LEFT");
			assertThat(afterKillMs).as(result.output()).isLessThan(1_500 + MARGIN_MS);
		}
		Path job = this.directory.resolve("after-join");
		// Left behind, it would show what: broken.properties alone was a late publication making it again.
		assertThat(job).as("removed by the last one out; left: %s", (Object) job.toFile().list()).doesNotExist();
	}

	@Test
	void aCleanFreeIsNoDeath() throws Exception {
		List<ChildJvm.Running> three = List.of(member("clean", 0, 3, 1_000, 4_000, Map.of()),
				member("clean", 1, 3, 1_000, 4_000, Map.of()), member("clean", 2, 3, 1_000, 0, Map.of()));
		for (ChildJvm.Running child : three) {
			ChildJvm.Result result = child.await(60);
			assertThat(result.exitCode()).as(result.output()).isZero();
			assertThat(result.output()).contains("LIVENESS state=JOINED").doesNotContain("BROKEN").contains("LEFT");
		}
		assertThat(this.directory.resolve("clean")).doesNotExist();
	}

	@Test
	void aPauseShorterThanTheLivenessTimeoutIsNoDeathAndOnePastItExpelsTheMember() throws Exception {
		List<ChildJvm.Running> three = new ArrayList<>();
		for (int index = 0; index < 3; index++) {
			three.add(member("paused", index, 3, 2_000, 60_000, Map.of()));
		}
		for (ChildJvm.Running child : three) {
			awaitOutput(child, "MESH index=");
		}
		long pid = three.get(2).process().pid();
		signal("STOP", pid);
		Thread.sleep(800);
		signal("CONT", pid);
		Thread.sleep(3_000);
		for (ChildJvm.Running child : three) {
			assertThat(child.output()).as("a pause of 0.8 s in 2 s").doesNotContain("BROKEN");
		}
		signal("STOP", pid);
		long stopped = System.nanoTime();
		for (ChildJvm.Running child : List.of(three.get(0), three.get(1))) {
			awaitOutput(child, "BROKEN state=BROKEN dead=2 pid=" + pid);
		}
		assertThat((System.nanoTime() - stopped) / 1_000_000).isLessThan(2_000 + MARGIN_MS);
		signal("CONT", pid);
		ChildJvm.Result expelled = three.get(2).await(30);
		assertThat(expelled.exitCode()).as(expelled.output()).isZero();
		assertThat(expelled.output()).contains("BROKEN state=EXPELLED dead=2 pid=" + pid)
			.contains("this process, index 2 (host " + host() + ", pid " + pid + "), was expelled")
			.contains("stood still for more than the liveness timeout (2 s)")
			.contains("LIVENESS state=EXPELLED")
			.contains("DESCRIBE FAILED status=FREED")
			.contains("restart the run");
		for (ChildJvm.Running child : List.of(three.get(0), three.get(1))) {
			ChildJvm.Result result = child.await(30);
			assertThat(result.exitCode()).as(result.output()).isZero();
		}
		assertThat(this.directory.resolve("paused")).doesNotExist();
	}

	private static void signal(String signal, long pid) throws InterruptedException {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
			assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (IOException ex) {
			throw new AssertionError("kill -" + signal + " " + pid + " could not run", ex);
		}
	}

	private static long afterMs(String output) {
		Matcher after = Pattern.compile("afterMs=(\\d+)").matcher(output);
		assertThat(after.find()).as(output).isTrue();
		return Long.parseLong(after.group(1));
	}

	private static String host() {
		return FileRendezvous.hostName();
	}

	private static void awaitOutput(ChildJvm.Running child, String text) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
		while (!child.output().contains(text)) {
			assertThat(System.nanoTime() - deadline).as("%s never printed: %s", text, child.output()).isNegative();
			Thread.sleep(20);
		}
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
