package io.uform.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import io.uform.gpu.DeviceFacts.Vendor;

/**
 * Lists AMD GPUs from the amdkfd topology in sysfs, with no ROCm library: the files
 * {@code sys/class/kfd/kfd/topology/nodes/N/properties} and {@code mem_banks/M/properties}, and for
 * names and readings the amdgpu files under {@code sys/class/drm/renderD<minor>/device/}. Every path
 * hangs off one root, {@code /} for the machine and a fixture tree in tests.
 *
 * <h2>What is read</h2>
 * <ul>
 * <li>A node is a GPU when its {@code simd_count} is non-zero (ROCr's rule; CPU nodes come first).
 * Nodes are taken in numeric order, and a GPU's vendor ordinal is its position among the GPU nodes,
 * the order {@code rocm-smi} and ROCr use before any visibility filter.</li>
 * <li>Compute units: {@code simd_count / simd_per_cu}, as ROCr computes them (the product
 * {@code array_count * cu_per_simd_array} also counts harvested CUs).</li>
 * <li>Class: from {@code gfx_target_version} ({@link GpuClasses#amd(int)}); the {@code name} file is
 * never parsed for the architecture.</li>
 * <li>Memory: the sum of {@code size_in_bytes} over memory banks of heap type 1 or 2 (frame buffer,
 * public or private).</li>
 * <li>UUID: {@code GPU-} and {@code unique_id} as 16 upper-case hex digits, ROCm's spelling; none when
 * {@code unique_id} is 0 or absent. PCI address: {@code domain} and {@code location_id}.</li>
 * <li>Name: the amdgpu {@code product_name} where the board has one; otherwise the gfx target with
 * the KFD {@code name} in brackets.</li>
 * </ul>
 * Visible devices and their order follow {@link AmdVisibility}.
 */
final class AmdKfdDiscovery {

	private static final String NODES = "sys/class/kfd/kfd/topology/nodes";

	private final Path root;

	private final Map<String, String> environment;

	/**
	 * Makes a discovery.
	 * @param root the directory that holds {@code sys/}: {@code /} for the machine
	 * @param environment the variables to honour, normally {@link System#getenv()}
	 */
	AmdKfdDiscovery(Path root, Map<String, String> environment) {
		this.root = root;
		this.environment = Map.copyOf(environment);
	}

	/**
	 * Lists the devices.
	 * @return visible devices in ROCm order, with unreadable nodes as problems
	 */
	GpuScan scan() {
		Path nodes = this.root.resolve(NODES);
		if (!Files.isDirectory(nodes)) {
			return GpuScan.none("AMD: no KFD topology at /" + NODES + " (amdgpu driver not loaded)");
		}
		List<String> problems = new ArrayList<>();
		List<FoundGpu> gpus = new ArrayList<>();
		List<String> uuids = new ArrayList<>();
		for (Path node : numbered(nodes, problems)) {
			Map<String, Long> properties;
			try {
				properties = properties(node.resolve("properties"));
			}
			catch (IOException | IllegalArgumentException ex) {
				// EPERM here means a device cgroup hides this GPU from the container: ROCr skips it too.
				problems.add("AMD: KFD node " + node.getFileName() + " unreadable (" + ex.getMessage() + "), skipped");
				continue;
			}
			if (properties.getOrDefault("simd_count", 0L) == 0) {
				continue;
			}
			FoundGpu gpu = describe(node, properties, gpus.size());
			gpus.add(gpu);
			uuids.add(gpu.device().uuid());
		}
		List<FoundGpu> visible = new ArrayList<>();
		for (int index : AmdVisibility.visible(this.environment, uuids)) {
			visible.add(gpus.get(index));
		}
		List<String> notes = new ArrayList<>();
		notes.add("AMD: KFD lists " + gpus.size() + " GPU node(s), " + visible.size() + " visible"
				+ filters());
		return new GpuScan(visible, problems, notes);
	}

	private String filters() {
		StringBuilder text = new StringBuilder();
		for (String variable : List.of(AmdVisibility.ROCR, AmdVisibility.HIP)) {
			String value = this.environment.get(variable);
			if (value != null) {
				text.append(text.length() == 0 ? " (" : ", ").append(variable).append("='").append(value).append('\'');
			}
		}
		return text.length() == 0 ? "" : text.append(')').toString();
	}

	/** Node directories in numeric order: node 10 comes after node 9, not after node 1. */
	private static List<Path> numbered(Path directory, List<String> problems) {
		try (Stream<Path> entries = Files.list(directory)) {
			return entries.filter((entry) -> entry.getFileName().toString().matches("\\d+"))
				.sorted((a, b) -> Long.compare(Long.parseLong(a.getFileName().toString()),
						Long.parseLong(b.getFileName().toString())))
				.toList();
		}
		catch (IOException ex) {
			problems.add("AMD: cannot list " + directory + " (" + ex.getMessage() + ")");
			return List.of();
		}
	}

	/**
	 * Parses a KFD {@code properties} file: one {@code key value} per line, values unsigned decimal
	 * (64-bit values such as {@code unique_id} may exceed {@code Long.MAX_VALUE} and are kept as
	 * their bit pattern).
	 * @param file the file
	 * @return the values by key
	 * @throws IOException when the file cannot be read
	 */
	static Map<String, Long> properties(Path file) throws IOException {
		Map<String, Long> values = new HashMap<>();
		for (String line : Files.readAllLines(file)) {
			String[] parts = line.trim().split("\\s+");
			if (parts.length == 2) {
				values.put(parts[0], Long.parseUnsignedLong(parts[1]));
			}
		}
		return values;
	}

	private FoundGpu describe(Path node, Map<String, Long> properties, int vendorOrdinal) {
		long simdPerCu = properties.getOrDefault("simd_per_cu", 0L);
		int computeUnits = simdPerCu == 0 ? 0 : (int) (properties.get("simd_count") / simdPerCu);
		int gfx = (int) (long) properties.getOrDefault("gfx_target_version", 0L);
		long uniqueId = properties.getOrDefault("unique_id", 0L);
		String uuid = uniqueId == 0 ? null : String.format(Locale.ROOT, "GPU-%016X", uniqueId);
		PciAddress pci = properties.containsKey("location_id") ? partitionedGpu(PciAddress.ofLocationId(
				(int) (long) properties.getOrDefault("domain", 0L), (int) (long) properties.get("location_id"))) : null;
		Path renderNode = properties.containsKey("drm_render_minor")
				? this.root.resolve("sys/class/drm/renderD" + properties.get("drm_render_minor") + "/device") : null;
		// Only a directory there now: one gone later means the device went (see AmdReadings).
		Path amdgpu = (renderNode != null && Files.isDirectory(renderNode)) ? renderNode : null;
		long memory = vram(node.resolve("mem_banks"));
		DeviceFacts device = new DeviceFacts(Vendor.AMD, vendorOrdinal, GpuClasses.amd(gfx), computeUnits, memory,
				name(node, amdgpu, gfx), uuid, pci == null ? null : pci.toString());
		return new FoundGpu(device, () -> AmdReadings.read(amdgpu, memory));
	}

	/**
	 * The GPU's own address for a partition of it. On a GPU split into partitions (an MI300X in CPX,
	 * DPX or QPX mode) the kernel ORs the partition's number into {@code location_id}'s low bits, the
	 * PCI function, so partition k reads as function k, which does not exist. Where the address read
	 * is no PCI device but function 0 of it is, that is the GPU. (Not a mask of the function bits: an
	 * SR-IOV virtual function is a real device at a non-zero function.)
	 */
	private PciAddress partitionedGpu(PciAddress read) {
		if (read.function() == 0) {
			return read;
		}
		PciAddress gpu = new PciAddress(read.domain(), read.bus(), read.device(), 0);
		Path devices = this.root.resolve("sys/bus/pci/devices");
		return (!Files.exists(devices.resolve(read.toString())) && Files.exists(devices.resolve(gpu.toString()))) ? gpu
				: read;
	}

	/** Frame-buffer memory: banks of heap type 1 (public, CPU-visible) and 2 (private). */
	private static long vram(Path banks) {
		long total = 0;
		if (!Files.isDirectory(banks)) {
			return 0;
		}
		try (Stream<Path> entries = Files.list(banks)) {
			for (Path bank : (Iterable<Path>) entries::iterator) {
				Path file = bank.resolve("properties");
				if (Files.isReadable(file)) {
					Map<String, Long> properties = properties(file);
					long heap = properties.getOrDefault("heap_type", -1L);
					if (heap == 1 || heap == 2) {
						total += properties.getOrDefault("size_in_bytes", 0L);
					}
				}
			}
		}
		catch (IOException | IllegalArgumentException ex) {
			// Memory is then reported as what could be summed; the readings still carry amdgpu's total.
		}
		return total;
	}

	private static String name(Path node, Path amdgpu, int gfx) {
		String product = amdgpu == null ? null : SysfsFiles.text(amdgpu.resolve("product_name"));
		if (product != null && !product.isBlank()) {
			return product.trim();
		}
		String kfdName = SysfsFiles.text(node.resolve("name"));
		String target = "AMD " + GpuClasses.gfxName(gfx);
		return kfdName == null || kfdName.isBlank() ? target : target + " (" + kfdName.trim() + ")";
	}
}
