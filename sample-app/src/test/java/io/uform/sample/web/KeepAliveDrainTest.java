package io.uform.sample.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.sample.SampleApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A request on a kept-alive connection during shutdown is answered (503, {@code Connection: close},
 * {@code Retry-After}) rather than left unread until the server stops and drops it, and a new
 * connection is refused, which a client knows to retry elsewhere. (Without the drain, the second
 * request below gets no answer: the paused connector never reads it.) Under {@code /v1} the 503 is
 * OpenAI's error body, as every error there is.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeepAliveDrainTest {

	@Test
	void aKeptAliveClientIsToldToGoAndANewOneIsRefused() throws Exception {
		String answer = drainAnswer(BOGUS);
		assertThat(answer).startsWith("HTTP/1.1 503")
			.containsIgnoringCase("Connection: close")
			.containsIgnoringCase("Retry-After: 1")
			.containsIgnoringCase("Content-Type: application/problem+json")
			.contains("\"detail\":\"the service is shutting down: send this request again, on a new connection\"");
	}

	@Test
	void aKeptAliveOpenAiClientIsToldToGoInOpenAisErrorBody() throws Exception {
		// OpenAI's SDKs read {"error": {...}} and retry a 503; a problem detail would reach them as an
		// error without a message.
		String answer = drainAnswer("/v1/embeddings");
		assertThat(answer).startsWith("HTTP/1.1 503")
			.containsIgnoringCase("Connection: close")
			.containsIgnoringCase("Retry-After: 1")
			.containsIgnoringCase("Content-Type: application/json")
			.contains("{\"error\":{\"message\":\"the service is shutting down: send this request again, on a new "
					+ "connection\",\"type\":\"server_error\"")
			.doesNotContain("\"detail\"");
	}

	/** A route answered with a 404 problem, its length declared (a 400 would close the connection). */
	private static final String BOGUS = "/actuator/uform/bogus";

	/**
	 * Starts the sample, keeps a connection alive with one request, starts closing the context, sends
	 * {@code path} on the kept connection within the drain and returns its answer; then checks that a
	 * new connection is refused.
	 */
	private static String drainAnswer(String path) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class).run(
				"--server.port=0", "--server.address=127.0.0.1", "--sample.embedding.enabled=false",
				"--uform.ram.threads=1", "--spring.main.banner-mode=off", "--sample.shutdown.drain-period=5s");
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		CompletableFuture<Void> closing = null;
		try (Socket kept = new Socket(InetAddress.getLoopbackAddress(), port)) {
			kept.setSoTimeout(10_000);
			assertThat(exchange(kept, BOGUS)).startsWith("HTTP/1.1 404").doesNotContainIgnoringCase("Connection: close");
			closing = CompletableFuture.runAsync(context::close);
			// The drain waits for a quiet moment before the graceful shutdown; this request comes within it.
			Thread.sleep(KeepAliveDrain.QUIET.toMillis() / 4);
			String answer = exchange(kept, path);
			assertThatExceptionOfType(ConnectException.class)
				.isThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close());
			return answer;
		}
		finally {
			if (closing != null) {
				closing.get(30, TimeUnit.SECONDS);
			}
			context.close();
		}
	}

	/** Sends a GET of {@code path} and reads the answer, whose length must be declared. */
	private static String exchange(Socket socket, String path) throws IOException {
		socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		InputStream in = socket.getInputStream();
		StringBuilder head = new StringBuilder();
		while (!head.toString().endsWith("\r\n\r\n")) {
			int b = in.read();
			if (b < 0) {
				return "no answer: " + head;
			}
			head.append((char) b);
		}
		int length = 0;
		for (String line : head.toString().split("\r\n")) {
			if (line.toLowerCase().startsWith("content-length:")) {
				length = Integer.parseInt(line.substring(15).trim());
			}
		}
		return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
	}
}
