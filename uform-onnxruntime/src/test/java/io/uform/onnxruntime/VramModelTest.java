package io.uform.onnxruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.DeviceLane;
import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import io.uform.ExecutorForVramConfig;
import io.uform.UformException;

/**
 * A model on a VRAM executor, over two simulated devices (the module's tests opt into them). ONNX
 * Runtime's CUDA provider is the boundary that cannot be had here (no GPU, and the CPU jar has no
 * provider): the real one is checked to refuse clearly, and a stand-in that records what it was given
 * lets the rest run, the sessions then computing on the host.
 */
@Timeout(120)
class VramModelTest {

	@Test
	void withoutTheGpuJarAVramModelIsRefusedNamingTheArtifactAndTheExclusion() {
		try (Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0)))) {
			assertThatThrownBy(() -> TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS))
				.isInstanceOfSatisfying(UformException.class,
						ex -> assertThat(ex.status()).isEqualTo(UformException.Status.UNSUPPORTED))
				.hasMessageContaining("no CUDA execution provider")
				.hasMessageContaining("com.microsoft.onnxruntime:onnxruntime_gpu")
				.hasMessageContaining("<exclusion> of com.microsoft.onnxruntime:onnxruntime")
				.hasMessageContaining("CUDA 12 and cuDNN 9");
		}
	}

	@Test
	void eachDeviceGetsASessionOnItsCudaOrdinalAndTheExecutorsStream() {
		List<Given> given = new CopyOnWriteArrayList<>();
		CudaProvider recording = (session, lane, options) -> {
			given.add(new Given(lane, Map.copyOf(options)));
			return () -> {
			};
		};
		try (Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS,
						recording)) {
			assertThat(given).hasSize(2);
			for (int i = 0; i < 2; i++) {
				DeviceLane lane = executor.lanes().get(i);
				assertThat(given.get(i).lane()).isSameAs(lane);
				assertThat(given.get(i).options()).containsOnly(
						Map.entry("device_id", Integer.toString(lane.runtimeOrdinal())),
						Map.entry("user_compute_stream", Long.toUnsignedString(lane.streamAddress())));
			}
			assertThat(given).extracting(g -> g.options().get("device_id")).containsExactly("0", "1");
			assertThat(model.sessions()).hasSize(2);
		}
	}

	@Test
	void aBatchIsSplitOverTheDevicesAndEachTextGetsTheVectorItGetsOnTheHost() {
		CudaProvider hostInstead = (session, lane, options) -> () -> {
		};
		Set<String> threads = ConcurrentHashMap.newKeySet();
		try (Executor ram = Executor.forRam(new ExecutorForRamConfig(null, null, 2, null));
				Executor vram = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(0, 1)));
				TextEmbeddingModel onHost = TextEmbeddingModel.load(ram, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS);
				TextEmbeddingModel onDevices = TextEmbeddingModel.load(vram, MiniLm.MODEL, MiniLm.TOKENIZER, MiniLm.OPTIONS,
						hostInstead)) {
			List<String> sessionsCalled = new CopyOnWriteArrayList<>();
			for (int i = 0; i < 2; i++) {
				String device = "device " + i;
				onDevices.sessions().get(i).probe = thread -> {
					threads.add(thread.getName());
					sessionsCalled.add(device);
				};
			}
			float[][] expected = onHost.embed(MiniLm.TEXTS);
			float[][] actual = onDevices.embed(MiniLm.TEXTS);
			for (int i = 0; i < expected.length; i++) {
				assertThat(actual[i]).as(MiniLm.TEXTS.get(i)).containsExactly(expected[i]);
			}
			// Texts are handed out one at a time, so how many each device takes depends on their timing.
			assertThat(sessionsCalled).containsOnly("device 0", "device 1").hasSize(MiniLm.TEXTS.size());
			assertThat(threads).allSatisfy(name -> assertThat(name).startsWith("uform-" + vram.name() + "-"));
		}
	}

	@Test
	void deviceIdIsTheDevicesCudaOrdinalNotItsPlaceAmongTheExecutorsDevices() {
		try (Executor executor = Executor.forVram(ExecutorForVramConfig.defaults().withDevices(List.of(1)))) {
			DeviceLane lane = executor.lanes().get(0);
			assertThat(lane.index()).isZero();
			assertThat(lane.runtimeOrdinal()).isEqualTo(1);
			assertThat(CudaProvider.options(lane)).containsEntry("device_id", "1");
		}
	}

	private record Given(DeviceLane lane, Map<String, String> options) {
	}
}
