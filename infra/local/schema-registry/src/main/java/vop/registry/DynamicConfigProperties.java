package vop.registry;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.context.ApplicationScoped;
import javax.enterprise.inject.Produces;

/** The list the config-index extension would generate at build time; that extension is not on Maven Central. */
@ApplicationScoped
public class DynamicConfigProperties {
  @Produces
  @ApplicationScoped
  public DynamicConfigPropertyList dynamicConfigPropertyList() {
    return new DynamicConfigPropertyList(List.of());
  }
}
