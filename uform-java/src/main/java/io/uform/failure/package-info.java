/**
 * The failure the runtime packages ({@code io.uform.gpu}, {@code io.uform.mesh}) throw:
 * {@link io.uform.failure.RuntimeFailure}, a status and a message a person can act on, which
 * {@code io.uform} turns into the {@code io.uform.UformException} its callers get, with the same
 * status, message, field, value and fix.
 *
 * <p>It is a package of its own so that dependencies run one way: {@code io.uform} (the API) uses the
 * runtime packages, and they use this package and name no type of {@code io.uform}. It names nothing
 * of uform itself.
 */
package io.uform.failure;
