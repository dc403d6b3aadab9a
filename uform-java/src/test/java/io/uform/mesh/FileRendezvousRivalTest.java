package io.uform.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.uform.UformException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A waiting process looks at its own record on every poll, recognising it by its bytes: when
 * another process of the same index has replaced it (both wrote at once, so neither saw the other's
 * record before writing), the waiting one must notice and fail naming both, rather than take the
 * rival's record for its own.
 */
@Timeout(30)
class FileRendezvousRivalTest {

	@TempDir
	Path directory;

	@Test
	void aWaitingProcessWhoseRecordARivalReplacedFailsNamingTheDuplicate() throws Exception {
		MemberRecord self = FileRendezvous.announce("rival", 0, 2, 1, false, Duration.ofSeconds(20), List.of());
		CompletableFuture<FileRendezvous> joining = CompletableFuture.supplyAsync(() -> FileRendezvous.join(this.directory, self),
				(task) -> new Thread(task).start());
		Path record = this.directory.resolve("rival").resolve("member-0.properties");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Files.exists(record) && System.nanoTime() < deadline) {
			Thread.sleep(5);
		}
		assertThat(record).as("the waiting process's record").exists();

		// A rival of index 0 replaces it the way every record is written: whole, then renamed into place.
		MemberRecord rival = FileRendezvous.announce("rival", 0, 2, 1, false, Duration.ofSeconds(20), List.of());
		Path temp = record.resolveSibling(".tmp-test-member-0.properties");
		// Its bytes once, for the comparison below too: a second toBytes() need not be the same bytes.
		byte[] rivalBytes = rival.toBytes();
		Files.write(temp, rivalBytes);
		Files.move(temp, record, StandardCopyOption.ATOMIC_MOVE);

		Throwable failure = failureOf(joining);
		assertThat(failure).isInstanceOf(UformException.class)
			.hasMessageContaining("index 0 is claimed by two processes")
			.hasMessageContaining("Both give up");
		assertThat(((UformException) failure).status()).isEqualTo(UformException.Status.INVALID_ARGUMENT);
		// It gave up without removing the rival's record, which is not its own.
		assertThat(Files.readAllBytes(record)).isEqualTo(rivalBytes);
	}

	private static Throwable failureOf(CompletableFuture<?> joining) throws InterruptedException {
		try {
			joining.get(10, TimeUnit.SECONDS);
			throw new AssertionError("the join succeeded, taking the rival's record for its own");
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		catch (java.util.concurrent.TimeoutException ex) {
			throw new AssertionError("the waiting process did not notice the rival within 10 s", ex);
		}
	}
}
