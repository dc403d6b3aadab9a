package io.uform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.stream.Stream;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException.Status;
import io.uform.gpu.SimulatedRuntime;
import io.uform.mesh.FileRendezvous;
import io.uform.mesh.MemberRecord;
import io.uform.mesh.MemberRecord.MemberDevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mesh within one JVM: every invalid option, the executor checks, a run with no peers, the
 * lifecycle (free, describe after free, the executor refused under a live mesh), and rendezvous
 * cases where threads standing in for processes are enough: disagreements, a new job after a free,
 * leftovers an earlier run left, the multimem tier. {@link MeshProcessesTest} runs the main
 * scenarios with real processes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MeshTest {

	@TempDir
	Path directory;

	private SimulatedRuntime runtime;

	private final List<Executor> executors = new ArrayList<>();

	private final List<Mesh> meshes = new ArrayList<>();

	@BeforeEach
	void simulateDevices() {
		this.runtime = new SimulatedRuntime(2, 16L << 20);
	}

	@AfterEach
	void freeEverything() {
		this.meshes.forEach(Mesh::free);
		this.executors.forEach(Executor::free);
	}

	private Executor vram(Integer... devices) {
		Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(devices)),
				Gpus.devices(this.runtime.devices()), (device, ordinal) -> this.runtime);
		this.executors.add(executor);
		return executor;
	}

	private Mesh keep(Mesh mesh) {
		this.meshes.add(mesh);
		return mesh;
	}

	private MeshOptions options(int index, int count, String job) {
		return new MeshOptions(index, count, null, this.directory, job, Duration.ofSeconds(10));
	}

	// Options

	@Test
	void everyInvalidOptionIsRejectedNamingTheFieldTheValueAndTheFix() {
		Executor executor = vram(0);
		Path dir = this.directory;
		Duration t = Duration.ofSeconds(5);
		assertInvalid(executor, new MeshOptions(null, 0, null, dir, "j", t), "hostDomainCount = 0", "at least 1");
		assertInvalid(executor, new MeshOptions(null, -3, null, dir, "j", t), "hostDomainCount = -3", "at least 1");
		assertInvalid(executor, new MeshOptions(4, 4, null, dir, "j", t), "hostDomainIndex = 4", "[0, 4)");
		assertInvalid(executor, new MeshOptions(-1, 4, null, dir, "j", t), "hostDomainIndex = -1", "JOB_COMPLETION_INDEX");
		assertInvalid(executor, new MeshOptions(1, null, null, null, null, null), "hostDomainIndex = 1",
				"set hostDomainCount");
		assertInvalid(executor, new MeshOptions(0, 2, 0, dir, "j", t), "gpusPerMultimemDomain = 0", "at least 1");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "j", Duration.ZERO), "timeout = PT0S", "positive");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "j", Duration.ofSeconds(-1)), "timeout = PT-1S",
				"DEFAULT_TIMEOUT");
		assertInvalid(executor, new MeshOptions(0, 2, null, null, "j", t), "directory = null", "every host sees");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, null, t), "job = null", "unique to the run");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir.resolve("absent"), "j", t),
				"directory = " + dir.resolve("absent"), "does not exist");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "..", t), "job = ..", "parent");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, ".", t), "job = .", "directory itself");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "", t), "job = ", "is empty");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "../escape", t), "job = ../escape", "path separator");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "a/b", t), "job = a/b", "path separator");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "a\\b", t), "job = a\\b", "path separator");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run\n42", t), "job = run", "U+000A");
		// An unresolved placeholder, as Spring binds one whose variable is unset: every run would share it.
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "${JOB_NAME}", t), "job = ${JOB_NAME}",
				"holds ${JOB_NAME}, a placeholder whose variable was not set");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run-${RUN_ID", t), "job = run-${RUN_ID",
				"holds ${RUN_ID, a placeholder");
		// The message shows such a character escaped, as it is logged wherever the failure goes; value() keeps it.
		assertThatThrownBy(() -> Mesh.bootstrap(executor, new MeshOptions(0, 2, null, dir, "run\u001b[2J", t)))
			.isInstanceOfSatisfying(UformException.class, (ex) -> {
				assertThat(ex.getMessage()).startsWith("Invalid job = run\\u001B[2J: ").doesNotContain("\u001b");
				assertThat(ex.value()).isEqualTo("run\u001b[2J");
			});
		// Invisible: a direction override shows the rest reversed, a zero-width space not at all.
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run-\u202E24", t), "job = run-", "U+202E");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run\u200B42", t), "job = run", "U+200B");
		// Format characters past the BMP too: a tag character (U+E0041, two chars in Java) is just as invisible.
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run\uDB40\uDC41", t), "job = run",
				"format character U+E0041");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "é".repeat(101), t), "job = ", "202 bytes");
		// Not a file name on this host: an unpaired surrogate no file name encoding writes. It escaped as a raw
		// InvalidPathException; the message names this JVM's file name encoding, the usual culprit.
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run-\uD800", t), "job = run-",
				"is not a file name on this host");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run-\uD800", t), "job = run-",
				"this JVM writes file names in " + System.getProperty("sun.jnu.encoding"));
		// SMB shares drop a trailing dot or space: 'run.' and 'run' would meet in one directory there.
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run.", t), "job = run.", "ends in '.'");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "run ", t), "job = run ", "ends in ' ', which SMB");
		assertInvalid(executor, new MeshOptions(0, 2, null, dir, "...", t), "job = ...", "ends in '.'");
		// A job name is checked even without peers, so a typo shows before the run grows.
		assertInvalid(executor, new MeshOptions(null, null, null, null, "a/b", null), "job = a/b", "path separator");
		assertInvalid(executor, new MeshOptions(null, null, null, null, "run-\uD800", null), "job = run-",
				"is not a file name on this host");
		// Nothing was written for any of them.
		assertThat(names(this.directory)).isEmpty();
	}

	@Test
	void aJobNameOfTwoHundredBytesIsAccepted() {
		Executor executor = vram(0);
		Mesh mesh = keep(Mesh.bootstrap(executor, new MeshOptions(null, null, null, null, "x".repeat(200), null)));
		assertThat(mesh.describe().job()).hasSize(200);
	}

	@Test
	void aRamExecutorIsRefusedAndAFreedOneReportsFreed() {
		try (Executor ram = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1))) {
			assertThatThrownBy(() -> Mesh.bootstrap(ram)).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
				.hasMessageContaining("'" + ram.name() + "' is a RAM executor")
				.hasMessageContaining("Executor.forVram()");
		}
		Executor freed = vram(0);
		freed.free();
		assertThatThrownBy(() -> Mesh.bootstrap(freed)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED))
			.hasMessageContaining(freed.name());
	}

	// A run with no peers

	@Test
	void aMeshOfOneProcessReturnsAtOnceWithoutTouchingTheDirectory() {
		Executor executor = vram(0, 1);
		Path nowhere = this.directory.resolve("not-there");
		long start = System.nanoTime();
		Mesh mesh = keep(Mesh.bootstrap(executor, new MeshOptions(null, null, null, nowhere, "solo", null)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		MeshDescription shape = mesh.describe();
		assertThat(shape.hostDomainIndex()).isZero();
		assertThat(shape.hostDomainCount()).isEqualTo(1);
		assertThat(shape.gpusPerHost()).isEqualTo(2);
		assertThat(shape.gpusPerMultimemDomain()).isEqualTo(2);
		assertThat(shape.multimemDomains()).isEqualTo(1);
		assertThat(shape.multimemTier()).isEqualTo(MultimemTier.PEER_READ);
		assertThat(shape.job()).isEqualTo("solo");
		assertThat(shape.devices()).isEqualTo(executor.devices());
		assertThat(shape.peerHosts()).containsExactly(FileRendezvous.hostName());
		assertThat(nowhere).doesNotExist();
		// The defaults, and an explicit count of 1, are runs with no peers too.
		Mesh defaults = keep(Mesh.bootstrap(vram(1)));
		assertThat(defaults.describe().hostDomainCount()).isEqualTo(1);
		assertThat(defaults.describe().job()).isNull();
		Mesh one = keep(Mesh.bootstrap(vram(0), new MeshOptions(0, 1, 1, null, null, null)));
		assertThat(one.describe().multimemDomains()).isEqualTo(1);
		assertThat(names(this.directory)).isEmpty();
	}

	@Test
	void bootstrapDurationIsTheTimeSpentInBootstrapWaitingForTheLastProcessIncluded() throws Exception {
		Executor alone = vram(0);
		long before = System.nanoTime();
		Mesh solo = Mesh.bootstrap(alone);
		Duration around = Duration.ofNanos(System.nanoTime() - before);
		assertThat(solo.bootstrapDuration()).isGreaterThanOrEqualTo(Duration.ZERO).isLessThanOrEqualTo(around);
		solo.free();
		assertThat(solo.bootstrapDuration()).as("a fact about the join: it answers after free").isLessThanOrEqualTo(around);
		// With a peer that arrives 300 ms late, the first process's bootstrap includes the wait for it.
		Executor early = vram(0);
		Executor late = vram(1);
		// A thread of its own: on JDK 25 a 2-core machine's common pool may not run it beside other work.
		// The 300 ms count from when that thread is about to bootstrap, not from when it was started:
		// counted from the start (a thread may take a moment to run on a loaded machine), the wait
		// measured 299 ms once. A solo bootstrap takes a few ms, so 250 ms still shows the wait included.
		CountDownLatch bootstrapping = new CountDownLatch(1);
		CompletableFuture<Mesh> first = CompletableFuture.supplyAsync(() -> {
			bootstrapping.countDown();
			return Mesh.bootstrap(early, options(0, 2, "late"));
		}, (task) -> new Thread(task, "mesh-early").start());
		assertThat(bootstrapping.await(30, TimeUnit.SECONDS)).as("the early process's thread ran").isTrue();
		Thread.sleep(300);
		Mesh second = keep(Mesh.bootstrap(late, options(1, 2, "late")));
		Mesh waited = keep(first.get(30, TimeUnit.SECONDS));
		assertThat(waited.bootstrapDuration()).isGreaterThanOrEqualTo(Duration.ofMillis(250))
			.isGreaterThan(second.bootstrapDuration());
	}

	@Test
	void aDirectoryWhereNoJobDirectoryCanBeMadeIsReportedAsTheDirectoryField() {
		// /proc exists and is a directory, but nothing can be made in it, not even by root.
		Executor executor = vram(0);
		assertThatThrownBy(() -> Mesh.bootstrap(executor, new MeshOptions(0, 2, null, Path.of("/proc"), "run-1",
				Duration.ofSeconds(5))))
			.isInstanceOf(UformException.class)
			.hasMessageStartingWith("Invalid directory = /proc: mesh job 'run-1' cannot use /proc/run-1 (")
			.hasMessageContaining("writable by this user on every host")
			.satisfies((ex) -> {
				UformException failure = (UformException) ex;
				assertThat(failure.status()).isEqualTo(Status.INVALID_ARGUMENT);
				assertThat(failure.field()).isEqualTo("directory");
				assertThat(failure.value()).isEqualTo("/proc");
				assertThat(failure.getCause()).isInstanceOf(java.io.IOException.class);
			});
	}

	// Lifecycle

	@Test
	void theExecutorIsRefusedWhileAMeshBorrowsItAndDescribeAfterFreeReportsFreed() {
		Executor executor = vram(0);
		Mesh mesh = Mesh.bootstrap(executor, new MeshOptions(null, null, null, null, "borrowed", null));
		assertThatThrownBy(executor::free).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("Executor '" + executor.name() + "' is borrowed by a live mesh (job 'borrowed')")
			.hasMessageContaining("free the mesh first");
		assertThatThrownBy(() -> executor.free(Duration.ofSeconds(1))).isInstanceOf(UformException.class)
			.hasMessageContaining("borrowed by a live mesh");
		// Still running: the refusal freed nothing.
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.RUNNING);
		mesh.free();
		mesh.free();
		assertThatThrownBy(mesh::describe).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED))
			.hasMessageContaining("was freed");
		executor.free();
		assertThat(executor.statistics().state()).isEqualTo(Executor.State.FREED);
	}

	@Test
	void freeFromTwoThreadsAtOnceLeavesOnce() throws Exception {
		List<Mesh> pair = join(List.of(options(0, 2, "twice-freed"), options(1, 2, "twice-freed")));
		Mesh mesh = pair.get(0);
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> frees = new ArrayList<>();
		for (int t = 0; t < 2; t++) {
			Thread thread = new Thread(() -> {
				await(go);
				mesh.free();
			});
			thread.start();
			frees.add(thread);
		}
		go.countDown();
		for (Thread thread : frees) {
			thread.join(10_000);
			assertThat(thread.isAlive()).isFalse();
		}
		assertThat(names(this.directory.resolve("twice-freed"))).contains("left-0.properties")
			.doesNotContain("member-0.properties");
		pair.get(1).free();
		assertThat(this.directory.resolve("twice-freed")).doesNotExist();
	}

	// Rendezvous

	@Test
	void processesThatJoinAgreeAndAfterFreeANewJobInTheSameDirectoryWorks() throws Exception {
		List<Mesh> first = join(List.of(options(0, 2, "first"), options(1, 2, "first")));
		assertThat(first.get(0).describe().hostDomainIndex()).isZero();
		assertThat(first.get(1).describe().hostDomainIndex()).isEqualTo(1);
		for (Mesh mesh : first) {
			assertThat(mesh.describe().hostDomainCount()).isEqualTo(2);
			assertThat(mesh.describe().multimemDomains()).isEqualTo(2);
			assertThat(mesh.describe().peerHosts()).containsExactly(FileRendezvous.hostName(), FileRendezvous.hostName());
		}
		first.forEach(Mesh::free);
		assertThat(this.directory.resolve("first")).doesNotExist();
		List<Mesh> second = join(List.of(options(0, 2, "second"), options(1, 2, "second")));
		assertThat(second.get(1).describe().job()).isEqualTo("second");
		second.forEach(Mesh::free);
		// And the same job name again, once the run before it left.
		List<Mesh> again = join(List.of(options(0, 2, "second"), options(1, 2, "second")));
		again.forEach(Mesh::free);
		assertThat(names(this.directory)).isEmpty();
	}

	@Test
	void aDisagreementOnGpusPerMultimemDomainFailsEveryProcessNamingWhoAndWhat() throws Exception {
		List<Throwable> failures = joinFailing(List.of(new MeshOptions(0, 2, 2, this.directory, "gpus", Duration.ofSeconds(10)),
				new MeshOptions(1, 2, null, this.directory, "gpus", Duration.ofSeconds(10))));
		for (Throwable failure : failures) {
			assertThat(failure).isInstanceOf(UformException.class)
				.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
				.hasMessageContaining("disagree on gpusPerMultimemDomain")
				.hasMessageContaining("has 2")
				.hasMessageContaining("has 1 (derived from its 1 GPU(s))")
				.hasMessageContaining("index 0 (host " + FileRendezvous.hostName())
				.hasMessageContaining("index 1 (host " + FileRendezvous.hostName());
		}
		assertThat(names(this.directory.resolve("gpus"))).noneMatch((name) -> name.startsWith("member-"));
	}

	@Test
	void aDisagreementOnTheCountFailsEveryProcess() throws Exception {
		List<Throwable> failures = joinFailing(List.of(options(0, 2, "count"), options(1, 3, "count")));
		for (Throwable failure : failures) {
			assertThat(failure).hasMessageContaining("disagree on hostDomainCount").hasMessageContaining("has 3")
				.hasMessageContaining("has 2");
		}
	}

	@Test
	void aTimeoutNamesTheMissingIndicesAndRemovesTheRecord() {
		Executor executor = vram(0);
		MeshOptions options = new MeshOptions(0, 3, null, this.directory, "alone", Duration.ofMillis(300));
		assertThatThrownBy(() -> Mesh.bootstrap(executor, options)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.TIMEOUT))
			.hasMessageContaining("timed out after 0.3 s: index 1, 2 never joined")
			.hasMessageContaining("removed its record");
		assertThat(names(this.directory.resolve("alone"))).noneMatch((name) -> name.startsWith("member-"));
		// The executor is not borrowed any more.
		executor.free();
	}

	/**
	 * An absent timeout is {@link MeshOptions#DEFAULT_TIMEOUT}, two minutes: the waiting process's
	 * record says so, and its peers judge its staleness by it.
	 */
	@Test
	void anAbsentTimeoutIsTheDefaultTwoMinutes() throws Exception {
		MeshOptions absent = new MeshOptions(0, 2, null, this.directory, "default-timeout", null);
		CompletableFuture<Mesh> waiting = start(List.of(absent), (device, ordinal) -> false,
				(device, ordinal) -> false).get(0);
		Path record = this.directory.resolve("default-timeout").resolve("member-0.properties");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(record) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(MemberRecord.parse(Files.readAllBytes(record)).timeout()).isEqualTo(Duration.ofMinutes(2))
			.isEqualTo(MeshOptions.DEFAULT_TIMEOUT);
		// Its peer arrives (timeouts need not agree), so the run joins and the test frees both.
		Mesh peer = keep(Mesh.bootstrap(vram(1), options(1, 2, "default-timeout")));
		keep(waiting.get(30, TimeUnit.SECONDS));
		assertThat(peer.describe().hostDomainCount()).isEqualTo(2);
	}

	@Test
	void aRecordOfAnotherHostOlderThanTheTimeoutIsReportedAsLeftByAnEarlierRun() throws IOException {
		Instant old = Instant.now().minus(Duration.ofMinutes(10));
		MemberRecord leftover = new MemberRecord(FileRendezvous.PROTOCOL, "old", 1, 2, 1, true, "an-old-incarnation",
				"node-gone", "", 4242, null, old, Duration.ofMinutes(2), old, List.of(new MemberDevice("NVIDIA", "H100",
						"GPU-1", "nvidia-hopper", 80L << 30, false)));
		writeRecord("old", "member-1.properties", leftover);
		Executor executor = vram(0);
		assertThatThrownBy(() -> Mesh.bootstrap(executor, options(0, 2, "old"))).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("member-1.properties of index 1 (host node-gone, pid 4242), written " + old)
			.hasMessageContaining("more than the timeout (2 min)")
			.hasMessageContaining("remove " + this.directory.resolve("old"));
	}

	@Test
	void aReadyFileOfAnEarlierRunIsReported() throws IOException {
		Path job = Files.createDirectories(this.directory.resolve("ready"));
		Files.writeString(job.resolve("ready-0.properties"), "marker.index=0\nmarker.count=2\nmarker.incarnation=x\n"
				+ "marker.host=node-a\nmarker.pid=7\nmarker.written=1577836800000000000\n");
		assertThatThrownBy(() -> Mesh.bootstrap(vram(0), options(1, 2, "ready"))).isInstanceOf(UformException.class)
			.hasMessageContaining("ready-0.properties of index 0 (host node-a, pid 7), written 2020-01-01T00:00:00Z")
			.hasMessageContaining("use a new job name");
	}

	/**
	 * A live run of this host, joined long ago (its records say it began its bootstrap ten minutes back,
	 * with a one-minute timeout; the writer is this JVM, so it is running for sure): a second process of
	 * index 0 arriving now is a second claim, failing alone, not a new run meeting an earlier run's
	 * files. The age rule called the live records stale and the ready files leftovers, and told it to
	 * remove the live run's directory.
	 */
	@Test
	void aLateSecondClaimOfALiveRunOfThisHostIsNamedAsSuchLongAfterItsTimeout() throws IOException {
		Assumptions.assumeFalse(FileRendezvous.announce("j", 0, 2, 1, true, Duration.ofMinutes(1), List.of()).hostKey()
			.isEmpty(), "this platform cannot tell whether a pid of this host runs");
		Path job = writeLiveRun("live", 2, Instant.now().minus(Duration.ofMinutes(10)));
		List<String> before = names(job);
		assertThatThrownBy(() -> Mesh.bootstrap(vram(0), options(0, 2, "live"))).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("index 0 is claimed by two processes")
			.hasMessageNotContaining("left by an earlier run");
		// It failed alone: the live run's files are as they were, beside the late one's abort file.
		assertThat(names(job)).containsAll(before).allMatch((name) -> before.contains(name) || name.startsWith("abort-"));
	}

	/**
	 * A process started with another hostDomainCount arrives after a run joined: it is told the
	 * processes disagree, not that the live run's ready files are an earlier run's to remove.
	 */
	@Test
	void aLateProcessWithAnotherCountIsToldItDisagreesNotToRemoveTheLiveRun() throws Exception {
		List<Mesh> joined = join(List.of(options(0, 2, "count-late"), options(1, 2, "count-late")));
		Path job = this.directory.resolve("count-late");
		List<String> before = names(job);
		assertThatThrownBy(() -> Mesh.bootstrap(vram(0), options(2, 3, "count-late"))).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on hostDomainCount")
			.hasMessageContaining("has 3")
			.hasMessageNotContaining("left by an earlier run");
		assertThat(names(job)).containsAll(before).allMatch((name) -> before.contains(name) || name.startsWith("abort-"));
		// The live run still ends cleanly, the late process's abort file going with its directory.
		joined.forEach(Mesh::free);
		assertThat(job).doesNotExist();
	}

	/**
	 * A live peer's record of another protocol version, there before this process looked: the
	 * processes disagree (the first look parsed it, and its first poll reuses that parse).
	 */
	@Test
	void aPeerOfAnotherProtocolThereAtTheFirstLookIsADisagreement() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("protocol-first"));
		Files.write(job.resolve("member-1.properties"), recordOfProtocol(1, "protocol-first", 1, 2).toBytes());
		assertThatThrownBy(() -> keep(Mesh.bootstrap(vram(0), options(0, 2, "protocol-first"))))
			.isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol 1")
			.hasMessageContaining("speaks " + FileRendezvous.PROTOCOL);
	}

	/** The same, the peer's record arriving while this process waits: read at a poll. */
	@Test
	void aPeerOfAnotherProtocolArrivingLaterIsADisagreement() throws Exception {
		CompletableFuture<Mesh> waiting = start(List.of(options(0, 2, "protocol-later")), (device, ordinal) -> false,
				(device, ordinal) -> false).get(0);
		Path job = this.directory.resolve("protocol-later");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(job.resolve("member-0.properties")) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		Path temp = job.resolve(".test-member-1");
		Files.write(temp, recordOfProtocol(1, "protocol-later", 1, 2).toBytes());
		Files.move(temp, job.resolve("member-1.properties"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
		assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(UformException.class)
			.hasMessageContaining("disagree on the mesh protocol")
			.hasMessageContaining("member-1.properties speaks protocol 1");
	}

	/** A record of a live process of this JVM (not stale) speaking {@code protocol}. */
	private static MemberRecord recordOfProtocol(int protocol, String job, int index, int count) {
		MemberRecord now = FileRendezvous.announce(job, index, count, 1, true, Duration.ofMinutes(1), List.of());
		return new MemberRecord(protocol, job, index, count, 1, true, now.incarnation(), now.host(), now.hostKey(),
				now.pid(), now.processStarted(), now.bootstrapStarted(), now.timeout(), now.written(), List.of());
	}

	/**
	 * Writes the files of a run of {@code count} processes of this JVM that joined: each one's record
	 * and ready file, as {@link FileRendezvous} writes them.
	 */
	private Path writeLiveRun(String job, int count, Instant began) throws IOException {
		Path dir = Files.createDirectories(this.directory.resolve(job));
		for (int index = 0; index < count; index++) {
			MemberRecord now = FileRendezvous.announce(job, index, count, 1, true, Duration.ofMinutes(1), List.of());
			MemberRecord record = new MemberRecord(now.protocol(), job, index, count, 1, true, now.incarnation(),
					now.host(), now.hostKey(), now.pid(), now.processStarted(), began, now.timeout(), began, List.of());
			Files.write(dir.resolve("member-" + index + ".properties"), record.toBytes());
			Files.writeString(dir.resolve("ready-" + index + ".properties"), "marker.index=" + index + "\nmarker.count="
					+ count + "\nmarker.incarnation=" + record.incarnation() + "\nmarker.host=" + record.host()
					+ "\nmarker.pid=" + record.pid() + "\nmarker.written=" + ChronoUnit.NANOS.between(Instant.EPOCH, began)
					+ "\n");
		}
		return dir;
	}

	@Test
	void aRunThatFinishedButWasNotRemovedYetIsRemovedAndJoinedAfresh() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("finished"));
		for (int index = 0; index < 2; index++) {
			Files.writeString(job.resolve("left-" + index + ".properties"), "marker.index=" + index + "\nmarker.count=2\n"
					+ "marker.incarnation=old-" + index + "\nmarker.host=node-a\nmarker.pid=7\n"
					+ "marker.written=1577836800000000000\n");
		}
		List<Mesh> joined = join(List.of(options(0, 2, "finished"), options(1, 2, "finished")));
		assertThat(names(job)).noneMatch((name) -> name.startsWith("left-"));
		joined.forEach(Mesh::free);
		assertThat(job).doesNotExist();
	}

	@Test
	void aDomainReducesInTheSwitchOnlyWhenEveryDeviceInItSupportsMulticast() throws Exception {
		// Index 0's device says yes, index 1's says no: as one domain of 2 both read peers; as domains
		// of 1, index 0's own domain reduces in the switch.
		List<Mesh> shared = join(List.of(new MeshOptions(0, 2, 2, this.directory, "shared", Duration.ofSeconds(10)),
				new MeshOptions(1, 2, 2, this.directory, "shared", Duration.ofSeconds(10))), (device, ordinal) -> true,
				(device, ordinal) -> false);
		assertThat(shared).extracting((mesh) -> mesh.describe().multimemTier()).containsOnly(MultimemTier.PEER_READ);
		assertThat(shared).extracting((mesh) -> mesh.describe().multimemDomains()).containsOnly(1);
		shared.forEach(Mesh::free);
		List<Mesh> split = join(List.of(new MeshOptions(0, 2, 1, this.directory, "split", Duration.ofSeconds(10)),
				new MeshOptions(1, 2, 1, this.directory, "split", Duration.ofSeconds(10))), (device, ordinal) -> true,
				(device, ordinal) -> false);
		assertThat(split.get(0).describe().multimemTier()).isEqualTo(MultimemTier.SWITCH_REDUCED);
		assertThat(split.get(1).describe().multimemTier()).isEqualTo(MultimemTier.PEER_READ);
		assertThat(split.get(0).describe().multimemDomains()).isEqualTo(2);
		split.forEach(Mesh::free);
	}

	@Test
	void tiersAndDomainCountsFollowTheGlobalGpuOrder() {
		List<List<Boolean>> flags = List.of(List.of(true, true), List.of(true, false), List.of(true, true));
		assertThat(Mesh.tier(flags, 0, 2)).isEqualTo(MultimemTier.SWITCH_REDUCED);
		assertThat(Mesh.tier(flags, 1, 2)).isEqualTo(MultimemTier.PEER_READ);
		assertThat(Mesh.tier(flags, 2, 2)).isEqualTo(MultimemTier.SWITCH_REDUCED);
		assertThat(Mesh.tier(flags, 2, 4)).isEqualTo(MultimemTier.SWITCH_REDUCED);
		assertThat(Mesh.tier(flags, 0, 4)).isEqualTo(MultimemTier.PEER_READ);
		assertThat(Mesh.tier(flags, 0, 72)).isEqualTo(MultimemTier.PEER_READ);
		assertThat(Mesh.domains(6, 2)).isEqualTo(3);
		assertThat(Mesh.domains(6, 4)).isEqualTo(2);
		assertThat(Mesh.domains(6, 72)).isEqualTo(1);
		assertThat(Mesh.domains(1, Integer.MAX_VALUE)).isEqualTo(1);
	}

	// Helpers

	/** Bootstraps each options on its own thread and executor, as separate processes would. */
	private List<Mesh> join(List<MeshOptions> each) throws Exception {
		return join(each, (device, ordinal) -> false, (device, ordinal) -> false);
	}

	/** As {@link #join(List)}, process 0's devices answering {@code first}, the others' {@code others}. */
	private List<Mesh> join(List<MeshOptions> each, BiPredicate<GpuDevice, Integer> first,
			BiPredicate<GpuDevice, Integer> others) throws Exception {
		List<Mesh> joined = new ArrayList<>();
		for (CompletableFuture<Mesh> future : start(each, first, others)) {
			joined.add(keep(future.get(30, TimeUnit.SECONDS)));
		}
		return joined;
	}

	private List<Throwable> joinFailing(List<MeshOptions> each) throws Exception {
		List<Throwable> failures = new ArrayList<>();
		for (CompletableFuture<Mesh> future : start(each, (device, ordinal) -> false, (device, ordinal) -> false)) {
			try {
				keep(future.get(30, TimeUnit.SECONDS));
				throw new AssertionError("a bootstrap that should have failed returned");
			}
			catch (ExecutionException ex) {
				failures.add(ex.getCause());
			}
		}
		return failures;
	}

	private List<CompletableFuture<Mesh>> start(List<MeshOptions> each, BiPredicate<GpuDevice, Integer> first,
			BiPredicate<GpuDevice, Integer> others) {
		List<CompletableFuture<Mesh>> futures = new ArrayList<>();
		for (int i = 0; i < each.size(); i++) {
			Executor executor = vram(i % 2);
			MeshOptions options = each.get(i);
			BiPredicate<GpuDevice, Integer> probe = (i == 0) ? first : others;
			CompletableFuture<Mesh> future = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try {
					future.complete(Mesh.bootstrap(executor, options, probe));
				}
				catch (Throwable ex) {
					future.completeExceptionally(ex);
				}
			}, "mesh-member-" + i);
			thread.setDaemon(true);
			thread.start();
			futures.add(future);
		}
		return futures;
	}

	private void writeRecord(String job, String name, MemberRecord record) throws IOException {
		Path dir = Files.createDirectories(this.directory.resolve(job));
		// The record's own format, as a crashed process of an earlier run would have left it.
		Files.write(dir.resolve(name), record.toBytes());
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void assertInvalid(Executor executor, MeshOptions options, String fieldAndValue, String fix) {
		ThrowingCallable call = () -> Mesh.bootstrap(executor, options);
		assertThatThrownBy(call).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INVALID_ARGUMENT))
			.hasMessageContaining(fieldAndValue)
			.hasMessageContaining(fix);
	}

	private static List<String> names(Path directory) {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).sorted().toList();
		}
		catch (IOException ex) {
			throw new AssertionError(ex);
		}
	}
}
