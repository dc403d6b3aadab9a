package io.uform.mesh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A heartbeat file, once there, is never empty or short: a process killed in the middle of a beat
 * (its first one, which makes the file, above all: a test's kill lands just after the record appears)
 * must leave a file that names its incarnation, or its finder cannot tell it is the dead process's and
 * leaves it behind in the directory. Read here as fast as a reader can while the beat runs every 10 ms.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HeartbeatFileTest {

	@TempDir
	Path directory;

	@Test
	void aReaderNeverFindsTheHeartbeatEmptyOrShortWhileItIsRewritten() throws Exception {
		Path job = Files.createDirectories(this.directory.resolve("job"));
		// A liveness timeout of 100 ms: a beat every 10 ms, the shortest refresh.
		MemberRecord self = FileRendezvous.announce("job", 0, 1, 1, false, Duration.ofSeconds(30), Duration.ofMillis(100),
				List.of());
		int length = Liveness.heartbeat(self.incarnation(), 1).length;
		Path alive = job.resolve(Liveness.aliveName(0));
		TreeMap<Integer, MemberRecord> members = new TreeMap<>();
		members.put(0, self);
		Liveness liveness = Liveness.start(new JobFiles(job, self.incarnation()), self, members);
		int reads = 0;
		int distinct = 0;
		String last = null;
		try {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
			while (System.nanoTime() < until) {
				byte[] bytes;
				try {
					bytes = Files.readAllBytes(alive);
				}
				catch (NoSuchFileException ex) {
					continue;
				}
				catch (IOException ex) {
					throw new AssertionError(ex);
				}
				reads++;
				String text = new String(bytes, StandardCharsets.ISO_8859_1);
				assertThat(bytes).as("read %d: %s", reads, text).hasSize(length);
				assertThat(text).contains("marker.incarnation=" + self.incarnation() + "\n");
				if (!text.equals(last)) {
					distinct++;
					last = text;
				}
			}
		}
		finally {
			liveness.stop();
		}
		// The reads overlapped many rewrites, or the test proved nothing.
		assertThat(distinct).as("beats seen in %d reads", reads).isGreaterThan(50);
	}
}
