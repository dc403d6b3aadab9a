package io.uform.sample.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Sends a request's exact bytes over a socket and reads the whole answer: an HTTP client library
 * would normalise what these tests send on purpose (bad escapes, raw bytes, {@code %2e%2e}).
 */
final class RawHttp {

	private RawHttp() {
	}

	/**
	 * Sends bytes and reads until the server closes.
	 * @param port the server's port on 127.0.0.1
	 * @param request the request line and headers, as bytes (the request asks to close)
	 * @return the answer
	 * @throws IOException when the connection fails
	 */
	static Answer send(int port, byte[] request) throws IOException {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write(request);
			socket.getOutputStream().flush();
			ByteArrayOutputStream read = new ByteArrayOutputStream();
			InputStream in = socket.getInputStream();
			in.transferTo(read);
			return Answer.parse(read.toString(StandardCharsets.ISO_8859_1));
		}
	}

	/**
	 * A GET with the given target, its bytes as they are.
	 * @param target the request target
	 * @param extraHeaders more header lines, each ending in CRLF
	 * @return the request's bytes
	 */
	static byte[] get(byte[] target, String extraHeaders) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		out.writeBytes("GET ".getBytes(StandardCharsets.US_ASCII));
		out.writeBytes(target);
		out.writeBytes((" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extraHeaders + "\r\n")
			.getBytes(StandardCharsets.ISO_8859_1));
		return out.toByteArray();
	}

	/**
	 * An answer.
	 *
	 * @param status its status code
	 * @param head its status line and headers
	 * @param body its body, chunk sizes and all (these tests look for the JSON in it)
	 */
	record Answer(int status, String head, String body) {

		static Answer parse(String raw) {
			int end = raw.indexOf("\r\n\r\n");
			String head = (end >= 0) ? raw.substring(0, end) : raw;
			String body = (end >= 0) ? raw.substring(end + 4) : "";
			int status = Integer.parseInt(head.split(" ", 3)[1]);
			return new Answer(status, head, body);
		}

		String contentType() {
			for (String line : this.head.split("\r\n")) {
				if (line.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
					return line.substring("content-type:".length()).trim();
				}
			}
			return "";
		}

		/** The body's JSON object, without a chunked encoding's sizes around it. */
		String json() {
			int start = this.body.indexOf('{');
			int end = this.body.lastIndexOf('}');
			return (start >= 0 && end > start) ? this.body.substring(start, end + 1) : "";
		}
	}
}
