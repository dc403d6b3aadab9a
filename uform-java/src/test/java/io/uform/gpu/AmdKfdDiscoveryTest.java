package io.uform.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.uform.gpu.DeviceFacts.Vendor;

class AmdKfdDiscoveryTest {

	private static final long GIB = 1L << 30;

	private static GpuScan scan(String fixture, Map<String, String> environment) {
		return new AmdKfdDiscovery(Fixtures.root(fixture), environment).scan();
	}

	private static List<DeviceFacts> devices(GpuScan scan) {
		return scan.gpus().stream().map(FoundGpu::device).toList();
	}

	@Test
	void describesAnMi300xAfterTheCpuNodes() {
		GpuScan scan = scan("mi300x", Map.of());

		assertThat(scan.problems()).isEmpty();
		assertThat(devices(scan)).containsExactly(new DeviceFacts(Vendor.AMD, 0, "amd-cdna3", 304, 192 * GIB,
				"AMD Instinct MI300X OAM", "GPU-38D5B152DD64E3C4", "0000:0c:00.0"));
	}

	@Test
	void readsMi300xLiveValuesAndLeavesTheMissingEdgeTemperatureEmpty() {
		Readings now = scan("mi300x", Map.of()).gpus().get(0).readings().get();

		assertThat(now).isEqualTo(new Readings(299_892_736L, 192 * GIB, 3, 142.0, null));
	}

	@Test
	void describesAnRx7900xtx() {
		GpuScan scan = scan("rx7900xtx", Map.of());

		// No product_name on consumer boards: the name says the gfx target and KFD's name; unique_id 0 gives no UUID.
		assertThat(devices(scan)).containsExactly(new DeviceFacts(Vendor.AMD, 0, "amd-rdna3", 96, 24 * GIB,
				"AMD gfx1100 (ip discovery)", null, "0000:03:00.0"));
		assertThat(scan.gpus().get(0).readings().get()).isEqualTo(new Readings(GIB, 24 * GIB, 17, 63.0, 45.0));
	}

	@Test
	void takesNodesInNumericOrder() {
		List<DeviceFacts> devices = devices(scan("two-mi210", Map.of()));

		// Node 2 before node 10, although "10" sorts before "2" as text.
		assertThat(devices).extracting(DeviceFacts::pciBusId).containsExactly("0000:63:00.0", "0000:83:00.0");
		assertThat(devices).extracting(DeviceFacts::vendorOrdinal).containsExactly(0, 1);
		assertThat(devices).extracting(DeviceFacts::uuid).containsExactly("GPU-A1B2C3D4E5F60718", null);
		assertThat(devices).extracting(DeviceFacts::gpuClass).containsOnly("amd-cdna2");
		assertThat(devices).extracting(DeviceFacts::computeUnits).containsOnly(104);
	}

	@Test
	void readsOnlyTheDiscoveredTotalWhereTheRenderNodeIsMissing() {
		// The second MI210 names render minor 136, which the fixture has no amdgpu directory for.
		assertThat(scan("two-mi210", Map.of()).gpus().get(1).readings().get())
			.isEqualTo(new Readings(null, 64 * GIB, null, null, null));
	}

	@Test
	void aDeviceWhoseAmdgpuDirectoryWentAwayIsLost(@TempDir Path root) throws IOException {
		copy(Fixtures.root("mi300x"), root);
		GpuScan scan = new AmdKfdDiscovery(root, Map.of()).scan();
		Path device = root.resolve("sys/class/drm/renderD128/device");
		assertThat(scan.gpus().get(0).readings().get().memoryUsedBytes()).isEqualTo(299_892_736L);

		// Unplugged or unbound: amdgpu removes the device's directory.
		delete(device);

		assertThatThrownBy(() -> scan.gpus().get(0).readings().get()).isInstanceOf(DeviceLostException.class)
			.hasMessageContaining(device + " is gone");
	}

	@Test
	void partitionsOfOneMi300xNameTheGpusPciAddressNotAFunctionThatDoesNotExist(@TempDir Path root) throws IOException {
		Path nodes = root.resolve("sys/class/kfd/kfd/topology/nodes");
		writeFile(nodes.resolve("0/properties"), "cpu_cores_count 96\nsimd_count 0\nlocation_id 0\ndomain 0\n");
		for (int partition = 0; partition < 2; partition++) {
			// The kernel ORs the partition's number into location_id's function bits.
			writeFile(nodes.resolve((partition + 1) + "/properties"), "simd_count 152\nsimd_per_cu 4\n"
					+ "gfx_target_version 90402\nlocation_id " + ((0x0c << 8) | partition) + "\ndomain 0\n"
					+ "drm_render_minor " + (128 + partition) + "\nunique_id 4095374405623145412\n");
		}
		Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:0c:00.0"));
		// An SR-IOV virtual function is a real device at a non-zero function, and keeps its address.
		writeFile(nodes.resolve("3/properties"), "simd_count 152\nsimd_per_cu 4\ngfx_target_version 90402\n"
				+ "location_id " + ((0x1d << 8) | 2) + "\ndomain 0\n");
		Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:1d:00.2"));
		Files.createDirectories(root.resolve("sys/bus/pci/devices/0000:1d:00.0"));
		List<DeviceFacts> devices = devices(new AmdKfdDiscovery(root, Map.of()).scan());
		assertThat(devices).extracting(DeviceFacts::pciBusId).containsExactly("0000:0c:00.0", "0000:0c:00.0",
				"0000:1d:00.2");
	}

	@Test
	void memoryIsTheFrameBufferBanksOnlyPublicAndPrivate(@TempDir Path root) throws IOException {
		Path node = root.resolve("sys/class/kfd/kfd/topology/nodes/1");
		writeFile(node.resolve("properties"), "simd_count 152\nsimd_per_cu 4\ngfx_target_version 90402\n");
		// Heap type 0 is system memory; 1 and 2 are the frame buffer's CPU-visible and private parts.
		writeFile(node.resolve("mem_banks/0/properties"), "heap_type 0\nsize_in_bytes " + (512 * GIB) + "\n");
		writeFile(node.resolve("mem_banks/1/properties"), "heap_type 1\nsize_in_bytes " + (64 * GIB) + "\n");
		writeFile(node.resolve("mem_banks/2/properties"), "heap_type 2\nsize_in_bytes " + (128 * GIB) + "\n");
		assertThat(devices(new AmdKfdDiscovery(root, Map.of()).scan())).singleElement()
			.extracting(DeviceFacts::memoryBytes).isEqualTo(192 * GIB);
	}

	@Test
	void aBlankProductNameOrKfdNameFallsBackToTheGfxTarget(@TempDir Path root) throws IOException {
		Path node = root.resolve("sys/class/kfd/kfd/topology/nodes/1");
		writeFile(node.resolve("properties"),
				"simd_count 152\nsimd_per_cu 4\ngfx_target_version 90402\ndrm_render_minor 128\n");
		writeFile(root.resolve("sys/class/drm/renderD128/device/product_name"), " \n");
		writeFile(node.resolve("name"), "aqua_vanjaram\n");
		assertThat(devices(new AmdKfdDiscovery(root, Map.of()).scan())).singleElement().extracting(DeviceFacts::name)
			.isEqualTo("AMD gfx942 (aqua_vanjaram)");
		writeFile(node.resolve("name"), "\n");
		assertThat(devices(new AmdKfdDiscovery(root, Map.of()).scan())).singleElement().extracting(DeviceFacts::name)
			.isEqualTo("AMD gfx942");
	}

	@Test
	void theNoteNamesEachVisibilityFilterThatIsSet() {
		assertThat(scan("two-mi210", Map.of("ROCR_VISIBLE_DEVICES", "1,0", "HIP_VISIBLE_DEVICES", "1")).notes())
			.containsExactly("AMD: KFD lists 2 GPU node(s), 1 visible (ROCR_VISIBLE_DEVICES='1,0', HIP_VISIBLE_DEVICES='1')");
		assertThat(scan("two-mi210", Map.of("HIP_VISIBLE_DEVICES", "0")).notes())
			.containsExactly("AMD: KFD lists 2 GPU node(s), 1 visible (HIP_VISIBLE_DEVICES='0')");
		assertThat(scan("two-mi210", Map.of()).notes()).containsExactly("AMD: KFD lists 2 GPU node(s), 2 visible");
	}

	private static void writeFile(Path file, String text) throws IOException {
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}

	private static void copy(Path from, Path to) throws IOException {
		try (Stream<Path> paths = Files.walk(from)) {
			for (Path path : (Iterable<Path>) paths::iterator) {
				Path target = to.resolve(from.relativize(path).toString());
				if (Files.isDirectory(path)) {
					Files.createDirectories(target);
				}
				else {
					Files.copy(path, target);
				}
			}
		}
	}

	private static void delete(Path directory) throws IOException {
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
				Files.delete(path);
			}
		}
	}

	@Test
	void rocrVisibleDevicesReordersAndKeepsRocmSmiOrdinals() {
		List<DeviceFacts> devices = devices(scan("two-mi210", Map.of("ROCR_VISIBLE_DEVICES", "1,0")));

		assertThat(devices).extracting(DeviceFacts::vendorOrdinal).containsExactly(1, 0);
	}

	@Test
	void rocrVisibleDevicesTakesUuidPrefixes() {
		List<DeviceFacts> devices = devices(scan("two-mi210", Map.of("ROCR_VISIBLE_DEVICES", " gpu-a1b2c ")));

		assertThat(devices).extracting(DeviceFacts::vendorOrdinal).containsExactly(0);
	}

	@Test
	void hipVisibleDevicesIndexesWhatRocrLeft() {
		List<DeviceFacts> devices = devices(
				scan("two-mi210", Map.of("ROCR_VISIBLE_DEVICES", "1,0", "HIP_VISIBLE_DEVICES", "1")));

		assertThat(devices).extracting(DeviceFacts::vendorOrdinal).containsExactly(0);
	}

	@Test
	void anEmptyFilterHidesEveryGpu() {
		GpuScan scan = scan("two-mi210", Map.of("ROCR_VISIBLE_DEVICES", ""));

		assertThat(scan.gpus()).isEmpty();
		assertThat(scan.notes()).singleElement().asString().contains("2 GPU node(s), 0 visible",
				"ROCR_VISIBLE_DEVICES=''");
	}

	@Test
	void noTopologyMeansNoDevicesAndNoProblem(@TempDir Path root) {
		GpuScan scan = new AmdKfdDiscovery(root, Map.of()).scan();

		assertThat(scan.gpus()).isEmpty();
		assertThat(scan.problems()).isEmpty();
		assertThat(scan.notes()).singleElement().asString().contains("no KFD topology");
	}

	@Test
	void anUnreadableNodeIsSkippedAndReported(@TempDir Path root) throws IOException {
		Path nodes = Files.createDirectories(root.resolve("sys/class/kfd/kfd/topology/nodes"));
		// A directory where the properties file should be cannot be read, like EPERM in a container.
		Files.createDirectories(nodes.resolve("0/properties"));
		Files.createDirectories(nodes.resolve("1"));
		Files.writeString(nodes.resolve("1/properties"), "simd_count 8\nsimd_per_cu 4\ngfx_target_version 90010\n");

		GpuScan scan = new AmdKfdDiscovery(root, Map.of()).scan();

		assertThat(devices(scan)).singleElement().satisfies((gpu) -> {
			assertThat(gpu.computeUnits()).isEqualTo(2);
			assertThat(gpu.memoryBytes()).isZero();
			assertThat(gpu.pciBusId()).isNull();
			assertThat(gpu.name()).isEqualTo("AMD gfx90a");
		});
		assertThat(scan.problems()).singleElement().asString().contains("KFD node 0 unreadable");
	}

	@Test
	void parsesUnsignedSixtyFourBitProperties(@TempDir Path root) throws IOException {
		Path file = Files.writeString(root.resolve("properties"), "unique_id 18446744073709551615\nhive_id 0\n");

		assertThat(AmdKfdDiscovery.properties(file)).containsEntry("unique_id", -1L).containsEntry("hive_id", 0L);
	}
}
