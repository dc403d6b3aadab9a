package io.uform.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether an NVIDIA driver may be installed, told from the file system alone, so that a machine
 * without one never loads JNA to find out: loading JNA and running its library search (which runs
 * {@code ldconfig -p}) is the costliest part of a cold JVM's first use of uform, paid on every start
 * of an application whose GPU discovery finds nothing.
 *
 * <p>It says "may be" when any sign of a driver is there: the kernel's side ({@code /dev/nvidiactl},
 * {@code /proc/driver/nvidia}, WSL's {@code /dev/dxg}, a Jetson's {@code /dev/nvmap},
 * {@code /dev/nvhost-ctrl-gpu} or {@code /dev/nvgpu}), or a {@code libcuda.so.1} where the dynamic
 * loader or JNA would look for it: a directory of {@code LD_LIBRARY_PATH} (split at {@code :} and
 * {@code ;} as glibc does; an entry with a {@code $} token counts as a sign), {@code jna.library.path}
 * or {@code jna.platform.library.path}, the loader's cache {@code /etc/ld.so.cache}, or a default or
 * multiarch library directory. (A directory added with JNA's {@code NativeLibrary.addSearchPath} is not
 * seen: name it in {@code jna.library.path}.) Then the driver is
 * opened as before, and whatever that finds is the answer. Only when none of these is there does
 * discovery report {@code libcuda.so.1} as not found without opening it. Outside Linux it always says
 * "may be": the library search there is JNA's.
 */
final class NvidiaDriverFiles {

	/** What the NVIDIA kernel driver (or WSL's GPU paravirtualisation) puts in place when loaded. */
	private static final List<String> KERNEL_SIGNS = List.of("dev/nvidiactl", "proc/driver/nvidia", "dev/dxg",
			"dev/nvmap", "dev/nvhost-ctrl-gpu", "dev/nvgpu");

	/** Where glibc's loader looks after its cache, and where distributions put the driver. */
	private static final List<String> LIBRARY_DIRECTORIES = List.of("lib", "usr/lib", "lib64", "usr/lib64",
			"lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu",
			"usr/lib/aarch64-linux-gnu/tegra", "lib/powerpc64le-linux-gnu", "usr/lib/powerpc64le-linux-gnu",
			"usr/lib/wsl/lib");

	private NvidiaDriverFiles() {
	}

	/**
	 * On the running machine.
	 * @return {@code false} only where no sign of an NVIDIA driver is found
	 */
	static boolean mayBePresent() {
		if (!System.getProperty("os.name", "").startsWith("Linux")) {
			return true;
		}
		try {
			String jna = System.getProperty("jna.library.path", "") + java.io.File.pathSeparator
					+ System.getProperty("jna.platform.library.path", "");
			return mayBePresent(Path.of("/"), System.getenv("LD_LIBRARY_PATH"), jna);
		}
		catch (RuntimeException ex) {
			// A search path entry that is no path, a file system that refuses a look: then open the driver
			// and let that decide, as without this check.
			return true;
		}
	}

	/**
	 * Under a root that holds {@code dev}, {@code proc}, {@code etc} and the library directories as a
	 * Linux machine does.
	 * @param root {@code /}, or a fixture tree in tests
	 * @param ldLibraryPath {@code LD_LIBRARY_PATH}, or {@code null}
	 * @param jnaLibraryPath JNA's search paths ({@code jna.library.path}, {@code jna.platform.library.path}),
	 *        or {@code null}
	 * @return {@code false} only where no sign of an NVIDIA driver is found
	 */
	static boolean mayBePresent(Path root, String ldLibraryPath, String jnaLibraryPath) {
		for (String sign : KERNEL_SIGNS) {
			if (Files.exists(root.resolve(sign))) {
				return true;
			}
		}
		// Absolute directories of the search paths are the machine's own, not the root's: tests use none.
		// glibc splits LD_LIBRARY_PATH at ':' and ';' and expands $ORIGIN, $LIB and $PLATFORM: a token
		// is not worth resolving here, so it counts as a sign.
		if (ldLibraryPath != null
				&& (ldLibraryPath.indexOf('$') >= 0 || inAnyOf(ldLibraryPath.split("[:;]", -1), true))) {
			return true;
		}
		if (jnaLibraryPath != null && inAnyOf(jnaLibraryPath.split(java.io.File.pathSeparator), false)) {
			return true;
		}
		if (cacheLists(root.resolve("etc/ld.so.cache"))) {
			return true;
		}
		for (String directory : LIBRARY_DIRECTORIES) {
			if (Files.exists(root.resolve(directory).resolve(JnaCudaDriver.CUDA_LIBRARY))) {
				return true;
			}
		}
		return false;
	}

	/** Whether a directory of a search path holds the library; an empty entry is the current one or none. */
	private static boolean inAnyOf(String[] directories, boolean emptyIsCurrent) {
		for (String directory : directories) {
			if (directory.isEmpty() && !emptyIsCurrent) {
				continue;
			}
			// The loader reads an empty entry of LD_LIBRARY_PATH as the current directory.
			Path path = Path.of(directory.isEmpty() ? "." : directory);
			if (Files.exists(path.resolve(JnaCudaDriver.CUDA_LIBRARY))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the loader's cache names the library: it holds every name and path as a NUL-terminated
	 * string, so the name followed by NUL is there exactly when an entry's name or path ends in it. An
	 * unreadable cache says "may be", as its absence does not: the loader then searches the default
	 * directories, which come next.
	 */
	private static boolean cacheLists(Path cache) {
		if (!Files.exists(cache)) {
			return false;
		}
		byte[] bytes;
		try {
			bytes = Files.readAllBytes(cache);
		}
		catch (IOException | OutOfMemoryError ex) {
			return true;
		}
		byte[] name = (JnaCudaDriver.CUDA_LIBRARY + "\0").getBytes(StandardCharsets.US_ASCII);
		outer: for (int i = 0; i + name.length <= bytes.length; i++) {
			for (int j = 0; j < name.length; j++) {
				if (bytes[i + j] != name[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}
}
