package io.uform.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NvidiaDriverFiles} on fixture trees: "may be present" at any sign of a driver, the kernel's
 * or the library's where the loader or JNA looks, and "not present" only with none of them.
 */
class NvidiaDriverFilesTest {

	@TempDir
	Path root;

	@TempDir
	Path elsewhere;

	@Test
	void aMachineWithNoSignOfADriverHasNone() throws IOException {
		Files.createDirectories(this.root.resolve("dev"));
		Files.createDirectories(this.root.resolve("usr/lib/x86_64-linux-gnu"));
		Files.writeString(this.root.resolve("usr/lib/x86_64-linux-gnu/libcudart.so.13"), "");
		cache("libcudart.so.13\0/usr/local/cuda-13.0/lib/libcudart.so.13\0libcuda.so.10\0");
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, null, null)).isFalse();
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, "", "")).as("empty search paths").isFalse();
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, this.elsewhere.toString(), null))
			.as("a search path without it").isFalse();
	}

	@Test
	void theKernelDriversDeviceOrProcEntryIsASign() throws IOException {
		for (String sign : new String[] { "dev/nvidiactl", "proc/driver/nvidia", "dev/dxg", "dev/nvmap",
				"dev/nvhost-ctrl-gpu" }) {
			Path root = Files.createTempDirectory(this.root, "machine");
			Files.createDirectories(root.resolve(sign).getParent());
			if (sign.startsWith("proc")) {
				Files.createDirectories(root.resolve(sign));
			}
			else {
				Files.writeString(root.resolve(sign), "");
			}
			assertThat(NvidiaDriverFiles.mayBePresent(root, null, null)).as(sign).isTrue();
		}
	}

	@Test
	void theLibraryInTheLoadersCacheIsASign() throws IOException {
		cache("ld.so-1.7.0\0glibc-ld.so.cache1.1\0libcuda.so.1\0/usr/lib/x86_64-linux-gnu/libcuda.so.1\0");
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, null, null)).isTrue();
	}

	@Test
	void theLibraryInADefaultOrMultiarchDirectoryIsASign() throws IOException {
		for (String directory : new String[] { "usr/lib64", "lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu/tegra" }) {
			Path root = Files.createTempDirectory(this.root, "machine");
			Files.createDirectories(root.resolve(directory));
			Files.writeString(root.resolve(directory).resolve("libcuda.so.1"), "");
			assertThat(NvidiaDriverFiles.mayBePresent(root, null, null)).as(directory).isTrue();
		}
	}

	@Test
	void theLibraryOnLdLibraryPathOrJnasPathIsASign() throws IOException {
		Files.writeString(this.elsewhere.resolve("libcuda.so.1"), "");
		String path = "/nonexistent:" + this.elsewhere;
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, path, null)).as("LD_LIBRARY_PATH").isTrue();
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, null, path)).as("jna.library.path").isTrue();
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, "/nonexistent;" + this.elsewhere, null))
			.as("LD_LIBRARY_PATH split at ';', as glibc does").isTrue();
		assertThat(NvidiaDriverFiles.mayBePresent(this.root, "/opt/driver/$LIB", null))
			.as("a $ token, not resolved here").isTrue();
	}

	private void cache(String content) throws IOException {
		Files.createDirectories(this.root.resolve("etc"));
		Files.write(this.root.resolve("etc/ld.so.cache"), content.getBytes(StandardCharsets.US_ASCII));
	}
}
