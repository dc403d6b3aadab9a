package io.uform.spring.autoconfigure.models;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.springframework.context.ConfigurableApplicationContext;

/** GET requests to a test application's embedded server on its random local port, each bounded in time. */
final class LocalServer {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private LocalServer() {
	}

	static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString());
	}
}
