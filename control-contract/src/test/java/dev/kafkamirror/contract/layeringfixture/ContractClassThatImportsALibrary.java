package dev.kafkamirror.contract.layeringfixture;

import org.assertj.core.api.Assertions;

/**
 * A deliberate violation of the contract's layering rule, for {@code LayeringTest} only: a class in
 * the contract's package that imports a library. It lives in the test sources, so it never ships.
 */
public final class ContractClassThatImportsALibrary {

  private ContractClassThatImportsALibrary() {}

  /** Uses a library type, which the contract's main code must never do. */
  public static void requireNonBlank(String value) {
    Assertions.assertThat(value).isNotBlank();
  }
}
