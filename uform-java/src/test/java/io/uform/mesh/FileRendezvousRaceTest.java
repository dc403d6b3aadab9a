package io.uform.mesh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Races between processes of a job (threads here, through the same files): two claims of one index
 * at the same moment, and a new run of a job starting while the last process of the previous run
 * removes its directory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileRendezvousRaceTest {

	@TempDir
	Path directory;

	@Test
	void aMemberRecordIsClaimedExclusivelySoOfTwoClaimsAtOnceOneLoses() throws IOException {
		// A rename replaced the first claimer's record with the second's, and the second could join while
		// the first found out only at its next poll, after the run had joined.
		Path job = Files.createDirectories(this.directory.resolve("job"));
		FileRendezvous.claimForTest(job, "first", "member-0.properties", "first".getBytes(StandardCharsets.UTF_8));
		assertThatThrownBy(() -> FileRendezvous.claimForTest(job, "second", "member-0.properties",
				"second".getBytes(StandardCharsets.UTF_8)))
			.isInstanceOf(FileAlreadyExistsException.class);
		assertThat(job.resolve("member-0.properties")).hasContent("first");
		try (Stream<Path> files = Files.list(job)) {
			assertThat(files.map((file) -> file.getFileName().toString())).containsExactly("member-0.properties");
		}
	}

	private static <T> CompletableFuture<T> at(CyclicBarrier go, java.util.function.Supplier<T> what) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				go.await();
			}
			catch (Exception ex) {
				throw new RuntimeException(ex);
			}
			return what.get();
		}, runnable -> new Thread(runnable).start());
	}

	@Test
	void aNewRunStartingWhileTheLastOneOutRemovesTheDirectoryNeverFindsItUnusable() throws Exception {
		List<String> cannotUse = new ArrayList<>();
		// Each trial ends an old run and starts a new one of the same job at the same moment; before the fix
		// one failed with "cannot use" within 2 to 25 trials.
		int trials = 60;
		for (int trial = 0; trial < trials && cannotUse.isEmpty(); trial++) {
			CyclicBarrier both = new CyclicBarrier(2);
			List<CompletableFuture<FileRendezvous>> old = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				MemberRecord self = FileRendezvous.announce("job", i, 2, 1, false, Duration.ofSeconds(5), List.of());
				old.add(at(both, () -> FileRendezvous.join(this.directory, self)));
			}
			FileRendezvous a = old.get(0).get(10, TimeUnit.SECONDS);
			FileRendezvous b = old.get(1).get(10, TimeUnit.SECONDS);
			a.leave();
			CyclicBarrier go = new CyclicBarrier(3);
			List<CompletableFuture<?>> all = new ArrayList<>();
			all.add(at(go, () -> {
				b.leave();
				return null;
			}));
			List<CompletableFuture<FileRendezvous>> fresh = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				MemberRecord self = FileRendezvous.announce("job", i, 2, 1, false, Duration.ofMillis(400), List.of());
				CompletableFuture<FileRendezvous> f = at(go, () -> FileRendezvous.join(this.directory, self));
				fresh.add(f);
				all.add(f);
			}
			for (CompletableFuture<FileRendezvous> f : fresh) {
				try {
					f.get(30, TimeUnit.SECONDS).leave();
				}
				catch (ExecutionException ex) {
					if (ex.getCause().getMessage().contains("cannot use")) {
						StringBuilder where = new StringBuilder();
						for (StackTraceElement e : ex.getCause().getCause().getStackTrace()) {
							if (e.getClassName().startsWith("io.uform") || e.getMethodName().startsWith("create")) {
								where.append("\n    at ").append(e);
							}
						}
						cannotUse.add("trial " + trial + ": " + ex.getCause() + where);
					}
				}
			}
			for (CompletableFuture<?> f : all) {
				try {
					f.get(30, TimeUnit.SECONDS);
				}
				catch (ExecutionException ex) {
					// counted above
				}
			}
			try (Stream<Path> walk = Files.walk(this.directory)) {
				walk.sorted(Comparator.reverseOrder()).filter((p) -> !p.equals(this.directory)).forEach((p) -> p.toFile().delete());
			}
		}
		assertThat(cannotUse).as("new processes that found the job directory unusable").isEmpty();
	}
}
