package io.uform.mesh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.uform.UformException;
import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An interrupt while a bootstrap waits gives up for every process: the waiting thread fails with
 * INTERRUPTED and keeps its interrupt flag, tells its peers through an abort file, and removes its own
 * record.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileRendezvousInterruptTest {

	@TempDir
	Path directory;

	@Test
	void anInterruptedBootstrapFailsWithInterruptedKeepsTheFlagAndTellsThePeers() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("job"));
		// A peer waits there (its record is this live process's, so not stale), for the abort to tell.
		PeerFiles.writeAsAPeerDoes(job, "member-1.properties",
				FileRendezvous.announce("job", 1, 3, 1, false, Duration.ofSeconds(20), List.of()).toBytes());
		MemberRecord self = FileRendezvous.announce("job", 0, 3, 1, false, Duration.ofSeconds(20), List.of());
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		CompletableFuture<Boolean> flagAfter = new CompletableFuture<>();
		Thread waiting = new Thread(() -> {
			try {
				FileRendezvous.join(this.directory, self);
				failure.complete(null);
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
			flagAfter.complete(Thread.currentThread().isInterrupted());
		}, "mesh-waiting");
		waiting.start();
		// Interrupted once it waits: its record is written, and index 2 never comes.
		Path record = job.resolve("member-0.properties");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(record) && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(record).exists();
		waiting.interrupt();

		assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(UformException.class)
			.hasMessageContaining("was interrupted while index 0")
			.hasMessageContaining("the interrupt flag is still set")
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.INTERRUPTED));
		assertThat(flagAfter.get(10, TimeUnit.SECONDS)).as("the interrupt flag after the failure").isTrue();
		// The peers hear of it, and no record of this attempt is left for them or for the next run.
		assertThat(names(job)).containsExactly("abort-" + self.incarnation() + ".properties", "member-1.properties");
		assertThat(job.resolve("abort-" + self.incarnation() + ".properties")).content()
			.contains("marker.status=INTERRUPTED");
	}

	private static List<String> names(Path directory) throws IOException {
		try (Stream<Path> files = Files.list(directory)) {
			return files.map((file) -> file.getFileName().toString()).sorted().toList();
		}
	}
}
