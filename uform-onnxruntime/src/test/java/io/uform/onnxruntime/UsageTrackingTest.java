package io.uform.onnxruntime;

import java.util.Properties;

import io.uform.Executor;
import io.uform.ExecutorForRamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * DJL's usage tracking (an HTTP probe of the cloud metadata address as its native library loads) is
 * off once a model loads, unless the application decided either way.
 */
@Timeout(60)
class UsageTrackingTest {

	@Test
	void withNeitherTheEnvironmentNorAPropertyTheTrackingIsTurnedOff() {
		Properties properties = new Properties();
		TextTokenizer.optOutOfUsageTracking(null, properties);
		assertThat(properties.getProperty(TextTokenizer.USAGE_TRACKING)).isEqualTo("true");
	}

	@Test
	void anApplicationsOwnPropertyDecides() {
		Properties properties = new Properties();
		properties.setProperty(TextTokenizer.USAGE_TRACKING, "false");
		TextTokenizer.optOutOfUsageTracking(null, properties);
		assertThat(properties.getProperty(TextTokenizer.USAGE_TRACKING)).isEqualTo("false");
	}

	@Test
	void theEnvironmentDecidesAndNoPropertyIsWritten() {
		Properties properties = new Properties();
		TextTokenizer.optOutOfUsageTracking("false", properties);
		assertThat(properties).doesNotContainKey(TextTokenizer.USAGE_TRACKING);
	}

	@Test
	void loadingAModelTurnsItOffBeforeDjlLoads() {
		assumeTrue(System.getenv(TextTokenizer.USAGE_TRACKING) == null,
				"OPT_OUT_TRACKING is set in this environment, so the environment decides");
		try (Executor executor = Executor.forRam(ExecutorForRamConfig.defaults().withThreads(1));
				TextEmbeddingModel model = TextEmbeddingModel.load(executor, MiniLm.MODEL, MiniLm.TOKENIZER,
						MiniLm.OPTIONS)) {
			assertThat(System.getProperty(TextTokenizer.USAGE_TRACKING)).isEqualTo("true");
		}
	}

}
